"""goyaml.emit against yaml.v2 (v2.4.0) as tk prints it."""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.goyaml import load
from tools.tanka.goyaml import emit
from tools.tanka.goyaml.emit import dump_yaml, show_output
from tools.tanka.goyaml.keys import key_less, sorted_keys

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tanka_render"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1000000, "1e+06"),
        (1e6, "1e+06"),
        (10485760, "1.048576e+07"),
        (999999, "999999"),
        (1000001.0, "1.000001e+06"),
        (0.00001, "1e-05"),
        (0.0001, "0.0001"),
        (-0.0, "-0"),
        (0.1 + 0.2, "0.30000000000000004"),
        (2.0**53, "9.007199254740992e+15"),
        (1e21, "1e+21"),
        (1.5, "1.5"),
        (-1, "-1"),
        (80 / 3 * 1e6, "2.6666666666666668e+07"),
        (float("inf"), ".inf"),
    ],
)
def test_numbers_are_go_float64_with_g_format(value: float, text: str) -> None:
    assert dump_yaml({"x": value}) == f"x: {text}\n"


@pytest.mark.parametrize(
    "text",
    ["y", "Y", "yes", "NO", "on", "Off", "true", "False", "~", "null", "", "8", "-1", "+5", "1_000",
     "0x1F", "0o17", "0b101", "017", "08", "1e3", ".5", "1.", "+.inf", ".NaN", "2001-01-01",
     "2001-1-2T3:04:05Z", "2001-12-14 21:59:43.10", "1:20", "-1:20:30.5"],
)  # fmt: skip
def test_strings_yaml11_would_misread_are_double_quoted(text: str) -> None:
    assert dump_yaml({"v": text}) == f'v: "{text}"\n'


@pytest.mark.parametrize(
    "text",
    ["<<", "hello", "yes please", "2001-02-30", "0x", "1.2.3", "1e400", "v1.2", "a:b", "a#b",
     "café", "-x", "?x", ".hidden", "0xFFFFFFFFFFFFFFFFFF", "12:60"],
)  # fmt: skip
def test_plain_strings_stay_plain(text: str) -> None:
    assert dump_yaml({"v": text}) == f"v: {text}\n"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("- item", "'- item'"),
        ("a: b", "'a: b'"),
        ("a #b", "'a #b'"),
        (" lead", "' lead'"),
        ("trail ", "'trail '"),
        ("'quote'", "'''quote'''"),
        ("*star", "'*star'"),
        ("{x}", "'{x}'"),
        ("---", "'---'"),
        ("tab\tin", '"tab\\tin"'),
        ("bell\a", '"bell\\a"'),
        ("nel\x85", '"nel\\N"'),
        ("bom\ufeff", '"bom\\uFEFF"'),
        ("\U0001f916", '"\\U0001F916"'),
        ("ctrl\x01", '"ctrl\\x01"'),
        ('say "hi"', 'say "hi"'),
        ("back\\slash", "back\\slash"),
    ],
)
def test_emitter_falls_back_from_plain(text: str, shown: str) -> None:
    assert dump_yaml({"v": text}) == f"v: {shown}\n"


def test_fixture_document_is_byte_identical() -> None:
    value = json.loads((FIXTURES / "nested.json").read_text(encoding="utf-8"))
    assert dump_yaml(value) == (FIXTURES / "nested.yaml").read_text(encoding="utf-8")


def test_double_quoted_fold_keeps_a_following_space_with_backslash() -> None:
    text = "\t" + "x" * 80 + "  y"
    assert dump_yaml({"k": text}) == 'k: "\\t' + "x" * 80 + '\n  \\ y"\n'


def test_fold_indent_follows_nesting() -> None:
    words = " ".join(["word"] * 30)
    out = dump_yaml({"a": {"b": [{"c": words}]}})
    lines = out.splitlines()
    assert lines[0:2] == ["a:", "  b:"]
    assert lines[2].startswith("  - c: word")
    assert len(lines[2]) <= 90
    assert all(line.startswith("      word") for line in lines[3:])
    assert load(out) == {"a": {"b": [{"c": words}]}}


def test_keys_longer_than_128_bytes_are_complex() -> None:
    assert dump_yaml({"k" * 128: 1}) == "k" * 128 + ": 1\n"
    assert dump_yaml({"é" * 65: 1}) == "? " + "é" * 65 + "\n: 1\n"
    assert dump_yaml({"": "x"}) == '"": x\n'


def test_multiline_keys_are_complex_and_double_quoted() -> None:
    assert dump_yaml({"a\nb": 1}) == "? |-\n  a\n  b\n: 1\n"


def test_scalars_and_collections_at_top_level() -> None:
    assert dump_yaml(None) == "null\n"
    assert dump_yaml({}) == "{}\n"
    assert dump_yaml([]) == "[]\n"
    assert dump_yaml(["a", ["b"]]) == "- a\n- - b\n"
    assert dump_yaml("multi\nline") == "|-\n  multi\n  line\n"


def test_show_output_separates_documents() -> None:
    docs = [{"kind": "A"}, {"kind": "B", "x": "end\n\n"}, {"kind": "C"}]
    assert show_output(docs) == "kind: A\n---\nkind: B\nx: |+\n  end\n\n---\nkind: C\n"
    assert show_output([]) == ""


def test_non_json_values_are_refused_clearly() -> None:
    with pytest.raises(TypeError, match="only JSON values"):
        dump_yaml({"x": object()})
    with pytest.raises(TypeError, match="keys must be strings"):
        dump_yaml({1: "x"})


@pytest.mark.parametrize(
    ("smaller", "larger"),
    [("file9", "file10"), ("port-2", "port-10"), ("_x", "A"), ("~", "a"), ("-", "a"),
     ("9", "a"), ("a", "ab"), ("A", "a"), ("a09", "a10"), ("a1", "a01")],
)  # fmt: skip
def test_natural_key_order(smaller: str, larger: str) -> None:
    assert key_less(smaller, larger)
    assert not key_less(larger, smaller)


_KEYS = st.text(alphabet="ab_-09.Z", max_size=6)


@given(st.lists(_KEYS, unique=True, max_size=12))
def test_sorted_keys_is_a_consistent_order(keys: list[str]) -> None:
    ordered = sorted_keys(keys)
    assert sorted(ordered) == sorted(keys)
    for earlier, later in itertools.pairwise(ordered):
        assert not key_less(later, earlier)


_ASCII_NO_DIGITS = st.characters(max_codepoint=0x7F, blacklist_characters="0123456789")


@given(st.lists(st.text(alphabet=_ASCII_NO_DIGITS, max_size=6), unique=True))
@settings(max_examples=500)
def test_sorted_keys_is_key_less_order(keys: list[str]) -> None:
    # Digit-free ASCII keys take a faster sort than the comparison: the same order either way.
    for v3 in (False, True):
        compare = functools.partial(_compare, v3=v3)
        assert sorted_keys(keys, v3=v3) == sorted(keys, key=functools.cmp_to_key(compare))


def _compare(a: str, b: str, *, v3: bool) -> int:
    return -1 if key_less(a, b, v3=v3) else int(key_less(b, a, v3=v3))


_TEXT = st.text(alphabet=st.sampled_from(list("ab yY01:-#'\"\n\t.é\U0001f916~[{*&")), max_size=120)
_JSON = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_output_reads_back_as_the_same_value(value: Any) -> None:
    assert load(dump_yaml(value)) == value


# Words, and strings long enough to fold at 80 columns, written at any depth.
_WORDS = st.text(alphabet=st.sampled_from(list("ab yY01:-#'\"\n\t\\.é\U0001f916~[{*&\x85\u2028")))
_PIECES = ["word", " ", "  ", "a'b", 'q"', "x" * 30, "é", "\n"]
_LONG = st.lists(st.sampled_from(_PIECES), max_size=30)
_SCALARS = _WORDS | _LONG.map("".join) | st.sampled_from(["true", "1e3", "null", "~", ""])
_DOCUMENTS = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**8), 10**8) | _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_SCALARS, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_DOCUMENTS, min_size=1, max_size=3))
@example([{"key": {"nested": ["word " * 24, "it's " * 20, '"q" ' * 25]}}])  # each folds
def test_scalars_rendered_once_are_written_as_in_place(documents: list[Any]) -> None:
    # Keys and short strings are rendered once and reused (emit._simple_key, _inline_string);
    # with both turned off every scalar is rendered where it stands: the same text either way.
    reused = show_output(documents)
    with pytest.MonkeyPatch.context() as off:
        off.setattr(emit, "_simple_key", lambda key: None)
        off.setattr(emit, "_inline_string", lambda text: None)
        assert show_output(documents) == reused
