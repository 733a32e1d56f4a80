"""Finding any `GRAM` consecutive characters of many canonical strings in a canonical text.

The mask hides every run of eight or more of a value's characters in order (canonical.py says
what "in order" forgives). Eight consecutive characters of any of the values - a gram - are
enough to start a run, so the index is the set of every value's grams, and a text is searched
for all of them at once: one RE2 alternation, which RE2 turns into an automaton that reads each
character of the text once whatever the number of grams (bench/redaction.py: 1,000 values, about
100,000 grams, 3 MB of canonical text in tens of milliseconds). A hit is then grown with the set:
every window overlapping the run is looked up, so two values overlapping each other, or a value
running on past the gram that found it, are one run.

Eight, because below it a piece of a value stops being a secret: seven characters of a random
password leave the rest to guess, and short pieces of ordinary words ("password", "replicas")
would start to collide with any manifest. The cost of that line: a value split into pieces
shorter than eight (the README says so).
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterable, Iterator

from tools import linear_re
from tools.redaction.canonical import squeeze

GRAM = 8
LONG_RUN = 12
# Grams per RE2 pattern, and the memory RE2 may use for one. RE2 compiles 20,000 grams in about
# 0.2 s; with 32 MiB its automaton keeps up with text as random as a base64 blob (1 MB in about
# 0.1 s once warm; 0.6 s at RE2's default 8 MiB), and typical manifests use a fraction of it.
_CHUNK = 20_000
_MAX_MEM = 32 << 20
# The indexes in use, by their sources: sessions on the same base commit learn the same Secret
# values, and share one compiled index while any of them holds it.
_SHARED: weakref.WeakValueDictionary[frozenset[str], GramIndex] = weakref.WeakValueDictionary()
_SHARED_LOCK = threading.Lock()
# A list of character codes (std.encodeUTF8, std.codepoint over std.stringChars) as the engine
# writes it: numbers between brackets, commas, spaces, line breaks and a diff's or YAML list's
# `-`/`+`. Eight at least, since fewer cannot hold a gram.
_CODES = linear_re.compile(r"[0-9]{1,7}(?:[ \t\r\n,\[\]+-]{1,64}[0-9]{1,7}){7,}")
_NUMBER = re.compile(r"[0-9]+")


class GramIndex:
    """The grams of canonical strings, and `runs(text)` to find them in a canonical text."""

    def __init__(self, sources: Iterable[str]) -> None:
        grams: set[str] = set()
        for source in sources:
            grams.update(source[i : i + GRAM] for i in range(len(source) - GRAM + 1))
        # RE2 takes UTF-8: a lone surrogate (from a stray \ud800 escape) cannot be in a pattern.
        self._grams = {g for g in grams if not _has_surrogate(g)}
        ordered = sorted(self._grams)
        self._patterns = [
            linear_re.compile("|".join(map(re.escape, ordered[i : i + _CHUNK])), max_mem=_MAX_MEM)
            for i in range(0, len(ordered), _CHUNK)
        ]

    def runs(self, text: str) -> list[tuple[int, int]]:
        """Spans of `text` covered by overlapping grams that hold a secret's worth (`telling`),
        in order."""
        spans: list[tuple[int, int]] = []
        for start in self._starts(text):
            end = self._grow(text, start)
            if telling(text[start:end]):
                spans.append((start, end))
        return spans

    def _starts(self, text: str) -> Iterator[int]:
        """Where each run begins: the first gram at or after the end of the previous run (the
        caller grows each run before asking for the next)."""
        data = text.encode("utf-8", "surrogatepass")
        if len(data) != len(text):
            # Not ASCII: RE2 works in bytes, and the wrapper maps each match back to characters
            # by walking the text. Rare (a text and a value outside ASCII); every start is taken.
            end = 0
            for start in sorted({m.start() for p in self._patterns for m in p.finditer(text)}):
                if start >= end:
                    yield start
                    end = self._grow(text, start)
            return
        # ASCII: bytes are characters, so each pattern resumes where the last run ended with no
        # new pass over the text; the next hit of each pattern is kept until a run passes it.
        never = len(data) + 1
        upcoming = [-1] * len(self._patterns)
        pos = 0
        while True:
            for n, pattern in enumerate(self._patterns):
                if upcoming[n] < pos:
                    found = pattern.search(data, pos)
                    upcoming[n] = found.start() if found is not None else never
            start = min(upcoming, default=never)
            if start == never:
                return
            yield start
            pos = self._grow(text, start)

    def _grow(self, text: str, start: int) -> int:
        """The end of the run that starts with the gram at `start`: every overlapping window that
        is a gram too carries it on."""
        end = start + GRAM
        at = start + 1
        while at < end and at + GRAM <= len(text):
            if text[at : at + GRAM] in self._grams:
                end = at + GRAM
            at += 1
        return end


def shared_index(sources: Iterable[str]) -> GramIndex | None:
    """The index of `sources`, compiled once however many masks hold the same; None if empty."""
    key = frozenset(sources)
    if not key:
        return None
    with _SHARED_LOCK:
        index = _SHARED.get(key)
        if index is None:
            index = _SHARED[key] = GramIndex(key)
        return index


def telling(run: str) -> bool:
    """Whether a run of a value's characters is worth masking: eight that mix letters and digits
    (a piece of a random password), or twelve of one kind. Eight letters alone are as often a word
    that every manifest holds ("password", "replicas", "template") as a piece of a Secret: a
    Secret `dummy-db-password-7Hq2` must not blank every key named `password`."""
    if len(run) >= LONG_RUN:
        return True
    digits = sum(c.isdigit() for c in run)
    return len(run) >= GRAM and 0 < digits < len(run)


def code_lists(text: str) -> Iterable[tuple[str, list[tuple[int, int]]]]:
    """Each list of character codes in `text`: its characters, canonical, and for each of them
    the span of the number it came from."""
    for found in _CODES.finditer(text):
        chars: list[str] = []
        spans: list[tuple[int, int]] = []
        base = found.start()
        for number in _NUMBER.finditer(found.group()):
            code = int(number.group())
            char = squeeze(chr(code)) if code <= 0x10FFFF else ""
            if char:
                chars.append(char)
                spans.append((base + number.start(), base + number.end()))
        if len(chars) >= GRAM:
            yield "".join(chars), spans


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)
