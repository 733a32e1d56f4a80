"""Masking by value: every known secret value is hidden wherever it turns up in a text.

Hiding Secrets by kind (tools/tanka/redact.py) leaves a value readable once it is copied somewhere
else: into a ConfigMap, base64-encoded into an annotation, into a source file that a git diff
shows. A `SecretMask` learns the values themselves and replaces every occurrence in any text with
the one fixed marker (marker.py), so nothing of a value is recoverable from what is shown: no
prefix, no length, no per-value tag.

For each value it knows several forms, since a value is rarely written only one way:

- the value without surrounding whitespace (a file's trailing newline): masking the whitespace
  too would swallow the line break and the next line's start (literals.py lets a newline match
  a diff's line prefix);
- its base64 form, standard and URL-safe (`-_` for `+/`), padded and not (as it would sit in a
  Secret's `data`, in `std.base64`'s output quoted elsewhere, or in a token or URL), and for a
  `data` value its decoded text. Not found: the value's base64 inside a larger base64 blob (a
  whole config file encoded at once), whose characters depend on what precedes the value; it is
  out of scope, as is any other encoding (hex, URL-escaping, gzip);
- its JSON/YAML double-quoted escaped form, when that differs (quotes, backslashes, newlines);
- its form escaped for Slack (`&amp;`, `&lt;`, `&gt;`), when that differs: text shown in Slack
  is escaped before the chat client masks it;
- for a multi-line value (a certificate, a config file), each line of at least `MIN_LINE_LENGTH`
  characters on its own: a unified diff shows such a value line by line, each behind `+`/`-`.

Values shorter than `MIN_VALUE_LENGTH` are not masked. A one- to three-character value ("1",
"yes", "dev") occurs all over any diff: masking it would black out unrelated text, and the pattern
of markers would itself give the value away; a value that short protects nothing anyway (a
thousand guesses find it). Four characters is where common words still collide ("true" is
masked, and so is every "true" beside it) but a value stops being guessable at a glance: the
floor errs towards hiding too much, since a false positive costs readability and a false
negative a leak. The one exception is a boolean or null spelled as a string ("true", "false",
"yes", "no", "on", "off", "null", "none", any case): a Secret holding one hides nothing (two
guesses), and masking it would blank every boolean in every manifest shown. Lines of
multi-line values have a higher bar for the same reason: short lines ("}", "---") are everywhere.

Overlapping occurrences of different values are hidden as one run, so no part of either shows.
The mask only grows: a value removed from the working tree may still be in a diff's `-` lines.
It is safe to share between threads (a turn's tools and the front end posting its results).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
from collections.abc import Iterable

from tools.redaction.literals import compile_literals
from tools.redaction.marker import REDACTED

MIN_VALUE_LENGTH = 4
MIN_LINE_LENGTH = 8
# Booleans and nulls spelled as strings: never a secret, everywhere in manifests.
NOT_SECRET = frozenset({"true", "false", "yes", "no", "on", "off", "null", "none"})


class SecretMask:
    """The secret values of one session, and `apply` to hide them in any text."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._forms: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._stale = False
        self.add_all(values)

    def add(self, value: str) -> None:
        """A plain value (a `stringData` value, say): it and its other forms are masked from now."""
        self._learn(plain_forms(value))

    def add_all(self, values: Iterable[str]) -> None:
        forms: set[str] = set()
        for value in values:
            forms |= plain_forms(value)
        self._learn(forms)

    def add_encoded(self, value: str) -> None:
        """A base64 value as in a Secret's `data`: it, and its decoded text with all its forms."""
        self._learn(encoded_forms(value))

    def apply(self, text: str) -> str:
        """`text` with every occurrence of every known form replaced by the marker."""
        pattern = self._current()
        if pattern is None or not text:
            return text
        parts: list[str] = []
        last = pos = 0
        while (found := pattern.search(text, pos)) is not None:
            start, end = found.span()
            # A value starting inside this one may run past its end: the run covers it too, so
            # no tail of it shows after the marker.
            inside = start + 1
            while inside < end:
                longer = pattern.match(text, inside)
                if longer is not None:
                    end = max(end, longer.end())
                inside += 1
            if start > last or not parts:
                parts.append(text[last:start])
                parts.append(REDACTED)
            # else: it touches the previous run, whose marker stands for both
            last = pos = end
        if not parts:
            return text
        parts.append(text[last:])
        return "".join(parts)

    @property
    def size(self) -> int:
        """How many distinct forms are masked (values times their forms)."""
        with self._lock:
            return len(self._forms)

    def _learn(self, forms: set[str]) -> None:
        with self._lock:
            if forms <= self._forms:
                return
            self._forms |= forms
            self._stale = True

    def _current(self) -> re.Pattern[str] | None:
        # Compiled under the lock, once per batch of new values: tools add values a render at a
        # time, while front ends apply the mask to many texts in between.
        with self._lock:
            if self._stale:
                self._pattern = compile_literals(self._forms)
                self._stale = False
            return self._pattern


def plain_forms(value: str) -> set[str]:
    """The forms under which a plain value may appear in text; empty when it is too short."""
    stripped = value.strip()
    if len(stripped) < MIN_VALUE_LENGTH or stripped.lower() in NOT_SECRET:
        return set()
    forms = {stripped}
    for text in (value, stripped):
        raw = text.encode("utf-8")
        for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
            forms |= {encoded.decode("ascii"), encoded.decode("ascii").rstrip("=")}
        forms.add(json.dumps(text, ensure_ascii=False)[1:-1])
    forms.add(stripped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    lines = [line.strip() for line in stripped.splitlines()]
    if len(lines) > 1:
        forms |= {line for line in lines if len(line) >= MIN_LINE_LENGTH}
    return forms


def encoded_forms(value: str) -> set[str]:
    """The forms of a base64 value and of its decoded text (when it is text)."""
    compact = "".join(value.split())
    try:
        decoded = base64.b64decode(compact, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):  # not base64, or binary: only the value as written
        return {f for f in (value, compact) if len(f.strip()) >= MIN_VALUE_LENGTH}
    if len(decoded.strip()) < MIN_VALUE_LENGTH or decoded.strip().lower() in NOT_SECRET:
        return set()
    return plain_forms(decoded) | {value, compact, compact.rstrip("=")}
