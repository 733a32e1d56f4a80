"""The mask by meaning: a random Secret value, carried out of its Secret by any of the
transformations Jsonnet and the encoders apply, never survives; random text without it is left
as it was.

The transformations are written here with the standard library, independently of the mask's own
decoding (tools/redaction/canonical.py), so a form the mask does not know fails the test.
"""

from __future__ import annotations

import base64
import json
import string
from collections.abc import Callable

from hypothesis import assume, given
from hypothesis import strategies as st

from tools.redaction import REDACTED, SecretMask
from tools.redaction.canonical import Canonical, canonical

# A generated password: letters, digits and the characters encoders escape.
PASSWORD_CHARS = string.ascii_letters + string.digits + "<>&'\"\\/:;#%!@-_= "


def go_json(value: str) -> str:
    text = json.dumps(value)[1:-1]
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


TRANSFORMS: dict[str, Callable[[str], str]] = {
    "as is": lambda v: v,
    "JSON": lambda v: json.dumps(v)[1:-1],
    "Go's JSON": go_json,
    "YAML single-quoted": lambda v: "'" + v.replace("'", "''") + "'",
    "shell single-quoted": lambda v: "'" + v.replace("'", "'\\''") + "'",
    "Python repr": repr,
    "Slack": lambda v: v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"),
    "spelled with spaces": " ".join,
    "spelled with commas": ",".join,
    "as a JSON list of characters": lambda v: json.dumps(list(v)),
    "reversed": lambda v: v[::-1],
    "upper-case": str.upper,
    "lower-case": str.lower,
    "character codes": lambda v: json.dumps([ord(c) for c in v]),
    "character codes, YAML list": lambda v: "".join(f"\n- {ord(c)}" for c in v),
    "base64": lambda v: base64.b64encode(v.encode()).decode(),
    "base64, URL-safe": lambda v: base64.urlsafe_b64encode(v.encode()).decode().rstrip("="),
    "in a larger base64 blob": lambda v: base64.b64encode(b"user=x;pw=" + v.encode()).decode(),
    "URL-escaped": lambda v: "".join(f"%{ord(c):02X}" if not c.isalnum() else c for c in v),
}

passwords = st.text(PASSWORD_CHARS, min_size=16, max_size=40).filter(
    lambda v: sum(c.isdigit() for c in v) >= 3 and sum(c.isalpha() for c in v) >= 6
)
surroundings = st.text(string.ascii_letters + string.digits + " :\n-", max_size=30)


def left_of_value(out: str, value: str) -> list[str]:
    """Pieces of `value` that `out` still shows: any eight of its letters and digits in order,
    mixing both, as the mask promises (canonical only measures here: the forms were made by the
    standard library above)."""
    meaning, shown = canonical(value), canonical(out.replace(REDACTED, " "))
    pieces = [meaning[i : i + 8] for i in range(len(meaning) - 7)]
    telling = [p for p in pieces if any(c.isdigit() for c in p) and not p.isdigit()]
    return [p for p in telling if p in shown or p[::-1] in shown]


@given(passwords, st.sampled_from(sorted(TRANSFORMS)), surroundings, surroundings)
def test_no_transformation_of_a_value_survives(
    value: str, transform: str, before: str, after: str
) -> None:
    mask = SecretMask([value])
    out = mask.apply(f"{before} {TRANSFORMS[transform](value)} {after}")
    assert left_of_value(out, value) == [], transform


@given(passwords, st.integers(0, 8), st.integers(8, 16))
def test_a_piece_of_eight_or_more_is_masked(value: str, start: int, length: int) -> None:
    piece = value[start : start + length]
    meaning = canonical(piece)
    assume(len(meaning) >= 8 and any(c.isdigit() for c in meaning) and not meaning.isdigit())
    mask = SecretMask([value])
    assert canonical(meaning) not in canonical(mask.apply(f"key: {piece}\n"))


words = st.text(string.ascii_letters + string.digits + " :\n-./'\"<>&", max_size=200)


@given(passwords, words)
def test_text_without_the_value_is_left_as_it_was(value: str, text: str) -> None:
    # Text shares no eight letters and digits in a row with the value (either way round).
    meaning = canonical(value)
    grams = {meaning[i : i + 8] for i in range(len(meaning) - 7)}
    grams |= {g[::-1] for g in grams}
    shown = canonical(text)
    assume(not any(shown[i : i + 8] in grams for i in range(len(shown) - 7)))
    assume(value.strip() not in text)
    assert SecretMask([value]).apply(text) == text


escaped_text = st.text(
    string.ascii_letters + string.digits + " \\u003cxXnN&;#%2F'\"<>é\n", max_size=300
)


@given(escaped_text)
def test_the_way_back_finds_each_character_where_it_came_from(text: str) -> None:
    mapped = Canonical(text)
    assert mapped.text == canonical(text)  # the fast path and the mapped one agree
    for index, char in enumerate(mapped.text):
        start, end = mapped.span(index, index + 1)
        assert char in canonical(text[start:end])
