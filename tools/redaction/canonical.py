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
    included).

    The way back is found only for the characters asked about: the decoded text is cut into
    blocks whose canonical lengths are counted by `squeeze` (C speed), and only the block holding
    a character is walked in Python. A 5 MB render with a few values in it costs the counts and
    a few blocks, not a Python step per character.
    """

    _BLOCK = 512

    def __init__(self, text: str) -> None:
        # Each decoded escape: where it starts and ends in the decoded text, and in `text`.
        self._escapes: list[tuple[int, int, int]] = []
        self._decoded_starts: list[int] = []
        parts: list[str] = []
        last = shift = 0  # shift: decoded position minus original position
        for escape in _ESCAPE.finditer(text) if _might_escape(text) else ():
            parts.append(text[last : escape.start()])
            decoded = _decoded(escape.group())
            at = escape.start() + shift
            self._escapes.append((at + len(decoded), escape.start(), escape.end()))
            self._decoded_starts.append(at)
            parts.append(decoded)
            shift += len(decoded) - (escape.end() - escape.start())
            last = escape.end()
        parts.append(text[last:])
        self._decoded = "".join(parts)
        self._counts = [0]
        for start in range(0, len(self._decoded), self._BLOCK):
            block = self._decoded[start : start + self._BLOCK]
            self._counts.append(self._counts[-1] + len(squeeze(block)))
        self._positions: dict[int, list[int]] = {}  # a block's significant characters, once asked
        self.text = squeeze(self._decoded)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original text's span behind canonical characters `start` to `end` (exclusive)."""
        return self._origin(self._decoded_at(start))[0], self._origin(self._decoded_at(end - 1))[1]

    def _decoded_at(self, index: int) -> int:
        """Where canonical character `index` is in the decoded text."""
        block = bisect.bisect_right(self._counts, index) - 1
        positions = self._positions.get(block)
        if positions is None:
            at = block * self._BLOCK
            chars = self._decoded[at : at + self._BLOCK]
            positions = [at + i for i, char in enumerate(chars) if _significant(char)]
            self._positions[block] = positions
        return positions[index - self._counts[block]]

    def _origin(self, decoded: int) -> tuple[int, int]:
        """The span of the original text that decoded character `decoded` came from."""
        escape = bisect.bisect_right(self._decoded_starts, decoded) - 1
        if escape < 0:
            return decoded, decoded + 1
        dec_end, source_start, source_end = self._escapes[escape]
        if decoded < dec_end:
            return source_start, source_end
        at = decoded - dec_end + source_end
        return at, at + 1


def _significant(char: str) -> bool:
    return not char.isascii() or char.isalnum()


def _might_escape(text: str) -> bool:
    return any(mark in text for mark in _MAYBE_ESCAPED)
