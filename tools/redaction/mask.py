"""Masking by value: every known Secret value is hidden wherever it turns up in a text.

Hiding Secrets by kind (tools/tanka/redact.py) leaves a value readable once it is copied somewhere
else: into a ConfigMap, base64-encoded into an annotation, into a source file that a git diff
shows, through Jsonnet that spells it out, reverses it or cuts a piece of it. A `SecretMask`
learns the values themselves and replaces every occurrence in any text with the one fixed marker
(marker.py), so nothing of a value is recoverable from what is shown: no prefix, no length, no
per-value tag.

It looks for a value by meaning rather than spelling (forms.py says what it looks for, value by
value): the text is reduced to its letters and digits with every escape decoded (canonical.py),
and any eight or more of a value's characters in order found there are masked (grams.py). Values
too short for that, and the lines of documents, are found by their literal spellings
(literals.py). Either way the cost of masking a text does not grow with the number of values:
one pass each over the text, its canonical form and its lists of character codes.

What it cannot find: a value split into pieces shorter than eight characters, a value computed
from several literals of which none is a Secret value, and encodings other than those forms.py
lists (hex, gzip, a cipher). The README says so, and what to do about it.

Overlapping occurrences of different values are hidden as one run, so no part of either shows.
The mask only grows: a value removed from the working tree may still be in a diff's `-` lines.
It is safe to share between threads (a turn's tools and the front end posting its results).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

from tools.redaction.canonical import Canonical, canonical
from tools.redaction.forms import (
    MIN_LINE_LENGTH,
    MIN_VALUE_LENGTH,
    NOT_SECRET,
    Forms,
    encoded_forms,
    plain_forms,
)
from tools.redaction.grams import GramIndex, code_lists, shared_index
from tools.redaction.literals import compile_literals
from tools.redaction.marker import REDACTED

__all__ = ["MIN_LINE_LENGTH", "MIN_VALUE_LENGTH", "NOT_SECRET", "SecretMask"]

Span = tuple[int, int]


class SecretMask:
    """The secret values of one session, and `apply` to hide them in any text."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._forms = Forms()
        self._literals: re.Pattern[str] | None = None
        self._grams: GramIndex | None = None
        self._stale = False
        self.add_all(values)

    def add(self, value: str) -> None:
        """A plain value (a `stringData` value, say): it and its other forms are masked from now."""
        self._learn(plain_forms(value))

    def add_all(self, values: Iterable[str]) -> None:
        forms = Forms()
        for value in values:
            forms |= plain_forms(value)
        self._learn(forms)

    def add_encoded(self, value: str) -> None:
        """A base64 value as in a Secret's `data`: it, and its decoded text with all its forms."""
        self._learn(encoded_forms(value))

    def apply(self, text: str) -> str:
        """`text` with every occurrence of every known value, in any of its forms, replaced by
        the marker."""
        literals, grams = self._current()
        if not text or (literals is None and grams is None):
            return text
        spans = _literal_spans(literals, text) if literals is not None else []
        if grams is not None:
            spans += _meaning_spans(grams, text)
        return _replaced(text, spans) if spans else text

    @property
    def size(self) -> int:
        """How many distinct forms are masked (literal spellings and canonical strings)."""
        with self._lock:
            return len(self._forms.literals) + len(self._forms.canonical)

    def _learn(self, forms: Forms) -> None:
        with self._lock:
            if forms <= self._forms:
                return
            self._forms |= forms
            self._stale = True

    def _current(self) -> tuple[re.Pattern[str] | None, GramIndex | None]:
        # Compiled under the lock, once per batch of new values: tools add values a render at a
        # time, while front ends apply the mask to many texts in between.
        with self._lock:
            if self._stale:
                self._literals = compile_literals(self._forms.literals)
                self._grams = shared_index(self._forms.canonical)
                self._stale = False
            return self._literals, self._grams


def _literal_spans(pattern: re.Pattern[str], text: str) -> list[Span]:
    spans: list[Span] = []
    pos = 0
    while (found := pattern.search(text, pos)) is not None:
        start, end = found.span()
        # A value starting inside this one may run past its end: the run covers it too, so no
        # tail of it shows after the marker.
        inside = start + 1
        while inside < end:
            longer = pattern.match(text, inside)
            if longer is not None:
                end = max(end, longer.end())
            inside += 1
        spans.append((start, end))
        pos = end
    return spans


def _meaning_spans(grams: GramIndex, text: str) -> list[Span]:
    spans: list[Span] = []
    # The canonical text without positions first: the way back is built only for a text that
    # holds a value.
    runs = grams.runs(canonical(text))
    if runs:
        mapped = Canonical(text)
        spans += [_with_padding(text, *mapped.span(start, end)) for start, end in runs]
    for codes, where in code_lists(text):
        spans += [(where[start][0], where[end - 1][1]) for start, end in grams.runs(codes)]
    return spans


def _with_padding(text: str, start: int, end: int) -> Span:
    """The span and base64's `=` padding after it, which has no letter or digit to be found by
    but tells the length of what was encoded."""
    padded = end
    while padded < len(text) and padded - end < 2 and text[padded] == "=":
        padded += 1
    return start, padded


def _replaced(text: str, spans: list[Span]) -> str:
    """`text` with each span replaced by the marker; overlapping or touching spans are one run,
    whose marker stands for all of them."""
    parts: list[str] = []
    last = 0
    for start, end in sorted(spans):
        if parts and start <= last:
            last = max(last, end)
            continue
        parts += [text[last:start], REDACTED]
        last = end
    parts.append(text[last:])
    return "".join(parts)
