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
from collections.abc import Iterable

from tools import linear_re
from tools.redaction.canonical import squeeze

GRAM = 8
LONG_RUN = 12
_CHUNK = 20_000  # grams per RE2 pattern: RE2 compiles this many in ~0.2 s within _MAX_MEM
_MAX_MEM = 64 << 20
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

    def __len__(self) -> int:
        return len(self._grams)

    def runs(self, text: str) -> list[tuple[int, int]]:
        """Spans of `text` covered by overlapping grams that hold a secret's worth (`telling`),
        in order."""
        starts = sorted({m.start() for p in self._patterns for m in p.finditer(text)})
        spans: list[tuple[int, int]] = []
        end = 0
        for start in starts:
            if start < end:
                continue  # inside a run already grown past it
            end = self._grow(text, start)
            if telling(text[start:end]):
                spans.append((start, end))
        return spans

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


def telling(run: str) -> bool:
    """Whether a run of a value's characters is worth masking: eight that mix letters and digits
    (a piece of a random password), or twelve of one kind. Eight letters alone are as often a word
    that every manifest holds ("password", "replicas", "template") as a piece of a Secret: a
    Secret `dummy-db-password-7Hq2` must not blank every key named `password`."""
    if len(run) >= LONG_RUN:
        return True
    digits = sum(c.isdigit() for c in run)
    return 0 < digits < len(run)


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
