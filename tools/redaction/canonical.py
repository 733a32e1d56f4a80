"""Text reduced to what survives every way of writing it: its letters and digits, in order.

A Secret value reaches text in many spellings. An encoder escapes it (Go's JSON writes `<` as
`\\u003c`, YAML doubles `'` inside single quotes, Slack turns `&` into `&amp;`, a URL writes
`%40`, a shell `'\\''`); Jsonnet in the repository or the agent's hands spells it out with
separators (`std.join(' ', std.stringChars(v))`), changes its case (`std.asciiUpper`) or cuts a
piece of it (`std.substr`). What all of these keep is the sequence of its letters and digits.
`canonical` decodes the escapes, drops every other ASCII character (punctuation, spaces, line
breaks, a diff's `+`/`-`) and lower-cases ASCII letters; the mask then looks for a value's
canonical form, and pieces of it, in the text's.

Every character outside ASCII counts as significant and keeps its case: dropping one would need
a Unicode table per character, where the ASCII rule is one `bytes.translate` over the whole text
(30 ms for 5 MB). `std.asciiUpper` and the escapes above only change ASCII, and a value is reduced
by the same function, so both sides agree.

The decoding is deliberately generous (a `\\n` is a line break even where it was two characters of
text): it only decides what the mask compares, never what is shown, and an escape mistaken for
another can hide a little more text, never reveal any.

`canonical` is the fast path (no positions); `Canonical` keeps, for each character of the
canonical text, the span of the original text it came from, so a match can be masked where it
stands. It is built only when the fast path found something to mask.
"""

from __future__ import annotations

import bisect
import html
import re
import string
from urllib.parse import unquote

from tools import linear_re

_KEEP = frozenset((string.ascii_letters + string.digits).encode())
_DROP = bytes(b for b in range(128) if b not in _KEEP)
_LOWER = bytes.maketrans(string.ascii_uppercase.encode(), string.ascii_lowercase.encode())

# The escapes of JSON (Go's \u003c too), YAML's double quotes, Python and shell ($'\101'), HTML
# and Slack (&lt; &#60; &#x3c;) and URLs (%3C, several at once so UTF-8 decodes whole). RE2:
# linear whatever the text.
_ESCAPE = linear_re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a UTF-16 surrogate pair
    r"|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\x[0-9a-fA-F]{2}|\\[0-7]{1,3}|\\[A-Za-z_]"
    r"|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
    r"|(?:%[0-9a-fA-F]{2})+"
)
# A backslash and one of these is a line break, a tab or another space-like control character.
_SPACE_ESCAPES = frozenset("abefnrtvNLP_0")
_MAYBE_ESCAPED = ("\\", "&", "%")
_SIGNIFICANT_RUN = re.compile("[A-Za-z0-9\x80-\U0010ffff]+")


def squeeze(text: str) -> str:
    """`text`'s significant characters, ASCII lower-cased; no escapes decoded."""
    raw = text.encode("utf-8", "surrogatepass")
    return raw.translate(_LOWER, _DROP).decode("utf-8", "surrogatepass")


def decode_escapes(text: str) -> str:
    """`text` with every escape sequence the encoders above write replaced by what it stands for."""
    if not _might_escape(text):
        return text
    return _ESCAPE.sub(lambda m: _decoded(m.group()), text)


def canonical(text: str) -> str:
    """The letters and digits `text` means, in order: escapes decoded, the rest dropped."""
    return squeeze(decode_escapes(text))


def _decoded(escape: str) -> str:
    lead = escape[0]
    if lead == "%":
        return unquote(escape)
    if lead == "&":
        return html.unescape(escape)
    body = escape[1:]
    kind = body[0]
    if kind == "u" and len(escape) == 12:  # \uD83D\uDE00: one character, as JSON means it
        high, low = int(body[1:5], 16), int(escape[8:], 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    if kind in "uUx" and len(body) > 1:
        return _chr(int(body[1:], 16))
    if kind.isdigit():
        return _chr(int(body, 8))
    return " " if kind in _SPACE_ESCAPES else kind


def _chr(code: int) -> str:
    return chr(code) if code <= 0x10FFFF else " "


class Canonical:
    """The canonical form of a text, with the way back: `span(i, j)` is the part of the original
    text that canonical characters i..j-1 came from (escapes and separators between them
    included)."""

    def __init__(self, text: str) -> None:
        # Pieces in canonical order: where each starts in the canonical text, where its source
        # starts and ends in `text`, and whether it maps one to one (a run of plain characters)
        # or every canonical character to the whole source (a decoded escape).
        self._starts: list[int] = []
        self._pieces: list[tuple[int, int, bool]] = []
        parts: list[str] = []
        size = last = 0
        for escape in _ESCAPE.finditer(text) if _might_escape(text) else ():
            size = self._plain(text, last, escape.start(), parts, size)
            decoded = squeeze(_decoded(escape.group()))
            if decoded:
                self._starts.append(size)
                self._pieces.append((escape.start(), escape.end(), False))
                parts.append(decoded)
                size += len(decoded)
            last = escape.end()
        self._plain(text, last, len(text), parts, size)
        self.text = "".join(parts)

    def _plain(self, text: str, start: int, end: int, parts: list[str], size: int) -> int:
        for run in _SIGNIFICANT_RUN.finditer(text, start, end):
            self._starts.append(size)
            self._pieces.append((run.start(), run.end(), True))
            parts.append(squeeze(run.group()))
            size += run.end() - run.start()
        return size

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original text's span behind canonical characters `start` to `end` (exclusive)."""
        return self._origin(start)[0], self._origin(end - 1)[1]

    def _origin(self, index: int) -> tuple[int, int]:
        piece = bisect.bisect_right(self._starts, index) - 1
        source_start, source_end, linear = self._pieces[piece]
        if not linear:
            return source_start, source_end
        at = source_start + index - self._starts[piece]
        return at, at + 1


def _might_escape(text: str) -> bool:
    return any(mark in text for mark in _MAYBE_ESCAPED)
