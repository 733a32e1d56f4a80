"""Find the `import`, `importstr` and `importbin` expressions of a Jsonnet source, lexer-exact.

Tanka's own importers analysis greps for `import 'x'`, so an import in a comment or inside a
string counts and `importbin` does not. We tokenise like go-jsonnet's lexer instead: comments
(`//`, `#`, `/* */`), quoted strings with escapes, verbatim `@'...'` strings and `|||` text
blocks are skipped as units, and only a keyword token followed by a string literal is an import.
Computed imports (`import x`) and text-block imports are syntax errors in Jsonnet, so they are
not reported here; the formatter's parse reports them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

ImportKind = Literal["import", "importstr", "importbin"]
_KEYWORDS: dict[str, ImportKind] = {
    "import": "import",
    "importstr": "importstr",
    "importbin": "importbin",
}

# One alternative per token class. Strings use the unrolled-loop form so long literals scan in
# linear time; `[^"\\]` also matches newlines, as Jsonnet strings may span lines.
_TOKEN = re.compile(
    r"""
      (?P<space>[ \t\r\n]+)
    | (?P<comment>(?://|\#)[^\n]*|/\*.*?\*/)
    | (?P<dq>"[^"\\]*(?:\\.[^"\\]*)*")
    | (?P<sq>'[^'\\]*(?:\\.[^'\\]*)*')
    | (?P<vdq>@"[^"]*(?:""[^"]*)*")
    | (?P<vsq>@'[^']*(?:''[^']*)*')
    | (?P<block>\|\|\|)
    | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<number>[0-9][0-9_]*(?:\.[0-9_]+)?(?:[eE][+-]?[0-9_]+)?)
    | (?P<bad>/\*|@|["'])
    | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_BLOCK_HEADER = re.compile(r"-?[ \t\r]*\n")
_HSPACE = re.compile(r"[ \t]*")


@dataclass(frozen=True, slots=True)
class ImportRef:
    kind: ImportKind
    path: str  # the string literal's value, escapes decoded
    line: int  # 1-based position of the keyword; the column in UTF-8 bytes, as go-jsonnet
    column: int


@dataclass(frozen=True, slots=True)
class LexError:
    message: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class ScanResult:
    imports: tuple[ImportRef, ...]
    # Set when the source cannot be tokenised; imports before that point are still listed.
    error: LexError | None = None


class _Positions:
    """Offset -> (line, column), both 1-based, computed only for the few offsets we report. The
    column counts UTF-8 bytes from the line's start, as go-jsonnet's locations do."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def at(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._starts, offset) - 1
        before = self._text[self._starts[index] : offset]
        return index + 1, len(before.encode("utf-8", "surrogatepass")) + 1


def scan_imports(text: str) -> ScanResult:
    """Every import expression with a literal path, in source order."""
    found: list[ImportRef] = []
    positions = _Positions(text)
    pending: tuple[ImportKind, int] | None = None  # an import keyword awaiting its string
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:  # unreachable: `other` matches any single character
            break
        group = match.lastgroup
        if group in ("space", "comment"):
            pos = match.end()
            continue
        if group == "bad":
            return ScanResult(tuple(found), _bad_token(text, pos, positions))
        if group == "block":
            end = _text_block_end(text, pos)
            if isinstance(end, str):
                return ScanResult(tuple(found), LexError(end, *positions.at(pos)))
            pending, pos = None, end
            continue
        value = match.group()
        if pending is not None and group in ("dq", "sq", "vdq", "vsq"):
            kind, start = pending
            found.append(ImportRef(kind, _decode(group, value), *positions.at(start)))
        pending = (_KEYWORDS[value], pos) if group == "ident" and value in _KEYWORDS else None
        pos = match.end()
    return ScanResult(tuple(found))


def _bad_token(text: str, pos: int, positions: _Positions) -> LexError:
    if text.startswith("/*", pos):
        return LexError("Multi-line comment has no terminating */", *positions.at(pos))
    if text[pos] == "@" and text[pos + 1 : pos + 2] not in ("'", '"'):
        return LexError("Couldn't lex verbatim string, junk after '@'", *positions.at(pos))
    return LexError("Unterminated String", *positions.at(pos))


def _text_block_end(text: str, pos: int) -> int | str:
    """Offset just past the `|||` block starting at pos, or the lexer's complaint."""
    header = _BLOCK_HEADER.match(text, pos + 3)
    if header is None:
        return "Text block requires new line after |||."
    pos = _skip_newlines(text, header.end())
    indent = _HSPACE.match(text, pos).group()  # type: ignore[union-attr]
    if not indent:
        return "Text block's first line must start with whitespace"
    while True:
        line_end = text.find("\n", pos)
        if line_end < 0:
            return "Unexpected EOF"
        pos = _skip_newlines(text, line_end + 1)
        if not text.startswith(indent, pos):
            terminator = _HSPACE.match(text, pos).end()  # type: ignore[union-attr]
            if not text.startswith("|||", terminator):
                return "Text block not terminated with |||"
            return terminator + 3


def _skip_newlines(text: str, pos: int) -> int:
    while text.startswith("\n", pos):
        pos += 1
    return pos


def _decode(group: str | None, literal: str) -> str:
    if group == "vdq":
        return literal[2:-1].replace('""', '"')
    if group == "vsq":
        return literal[2:-1].replace("''", "'")
    body = literal[1:-1]
    if "\\" not in body:
        return body
    decoded = _ESCAPE.sub(_unescape, body)
    # \uD83D\uDE00 names one astral character: join surrogate pairs, keep lone ones as written.
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


# Jsonnet's escapes are JSON's plus \'; an invalid one is left as written (the parser reports it).
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {
    '"': '"',
    "'": "'",
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if len(code) == 5:
        return chr(int(code[1:], 16))
    return _SIMPLE_ESCAPES.get(code, match.group())


def text_block_end(text: str, pos: int) -> int | str:
    """Offset just past the `|||` text block starting at pos, or go-jsonnet's lexer complaint."""
    return _text_block_end(text, pos)
