"""The character-level half of the yaml.v2 emitter: columns, indentation and scalar writers.

State and rules follow go-yaml v2.4.0 (`emitterc.go`): `whitespace` says the last thing written
was whitespace, `indention` that only indentation has been written on this line. Plain,
single-quoted and double-quoted scalars fold at a space once the column passes 80 (the emitter's
default width, which tk never changes); double-quoted text keeps a space that follows the fold
with a `\\` at the start of the continuation line. Columns count code points, as go-yaml counts
runes.
"""

from __future__ import annotations

from tools.tanka.yaml_scalar import BREAKS, is_printable

BEST_WIDTH = 80
BEST_INDENT = 2

_SHORT_ESCAPES = {
    "\0": "0",
    "\a": "a",
    "\b": "b",
    "\t": "t",
    "\n": "n",
    "\v": "v",
    "\f": "f",
    "\r": "r",
    "\x1b": "e",
    '"': '"',
    "\\": "\\",
    "\x85": "N",
    "\xa0": "_",
    "\u2028": "L",
    "\u2029": "P",
}


def _escape(ch: str) -> str:
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return "\\" + short
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02X}"
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    return f"\\U{code:08X}"


def _needs_escape(ch: str) -> bool:
    return not is_printable(ch) or ch in BREAKS or ch in '"\\\ufeff'


class Writer:
    """Output buffer plus go-yaml's emitter position state."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.indent = -1
        self._indents: list[int] = []

    def text(self) -> str:
        return "".join(self.parts)

    def put(self, text: str) -> None:
        self.parts.append(text)
        self.column += len(text)

    def put_break(self) -> None:
        self.parts.append("\n")
        self.column = 0

    def increase_indent(self, *, flow: bool, indentless: bool) -> None:
        self._indents.append(self.indent)
        if self.indent < 0:
            self.indent = BEST_INDENT if flow else 0
        elif not indentless:
            self.indent += BEST_INDENT

    def pop_indent(self) -> None:
        self.indent = self._indents.pop()

    def write_indent(self) -> None:
        indent = max(self.indent, 0)
        if (
            not self.indention
            or self.column > indent
            or (self.column == indent and not self.whitespace)
        ):
            self.put_break()
        if self.column < indent:
            self.put(" " * (indent - self.column))
        self.whitespace = True
        self.indention = True

    def write_indicator(
        self, indicator: str, *, need_whitespace: bool, is_whitespace: bool, is_indention: bool
    ) -> None:
        if need_whitespace and not self.whitespace:
            self.put(" ")
        self.put(indicator)
        self.whitespace = is_whitespace
        self.indention = self.indention and is_indention

    def _write_break(self, ch: str) -> None:
        # `\n` becomes the line break; other breaks (LS, PS) are copied and reset the column.
        if ch == "\n":
            self.put_break()
        else:
            self.parts.append(ch)
            self.column = 0

    def write_plain(self, text: str, *, allow_breaks: bool) -> None:
        if not self.whitespace:
            self.put(" ")
        self._write_folding(text, allow_breaks=allow_breaks, quote=False)

    def write_single_quoted(self, text: str, *, allow_breaks: bool) -> None:
        self.write_indicator("'", need_whitespace=True, is_whitespace=False, is_indention=False)
        self._write_folding(text, allow_breaks=allow_breaks, quote=True)
        self.write_indicator("'", need_whitespace=False, is_whitespace=False, is_indention=False)

    def _write_folding(self, text: str, *, allow_breaks: bool, quote: bool) -> None:
        """Plain and single-quoted bodies: fold at a lone space past the width, keep breaks."""
        spaces = breaks = False
        last = len(text) - 1
        for i, ch in enumerate(text):
            if ch == " ":
                inner = not quote or 0 < i < last  # single quotes never fold the edge spaces
                following = text[i + 1] if i < last else ""
                if (
                    allow_breaks
                    and not spaces
                    and self.column > BEST_WIDTH
                    and inner
                    and following != " "
                ):
                    self.write_indent()
                else:
                    self.put(ch)
                spaces = True
            elif ch in BREAKS:
                if not breaks and ch == "\n":
                    self.put_break()
                self._write_break(ch)
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put("''" if quote and ch == "'" else ch)
                self.indention = False
                spaces = breaks = False
        self.whitespace = False
        self.indention = False

    def write_double_quoted(self, text: str, *, allow_breaks: bool) -> None:
        self.write_indicator('"', need_whitespace=True, is_whitespace=False, is_indention=False)
        spaces = False
        last = len(text) - 1
        for i, ch in enumerate(text):
            if _needs_escape(ch):
                self.put(_escape(ch))
                spaces = False
            elif ch == " ":
                if allow_breaks and not spaces and self.column > BEST_WIDTH and 0 < i < last:
                    self.write_indent()
                    if text[i + 1] == " ":
                        self.put("\\")  # the next space would otherwise be eaten by folding
                else:
                    self.put(ch)
                spaces = True
            else:
                self.put(ch)
                spaces = False
        self.write_indicator('"', need_whitespace=False, is_whitespace=False, is_indention=False)
        self.whitespace = False
        self.indention = False

    def write_literal(self, text: str) -> None:
        self.write_indicator("|", need_whitespace=True, is_whitespace=False, is_indention=False)
        hints = (str(BEST_INDENT) if text and (text[0] == " " or text[0] in BREAKS) else "") + (
            _chomping(text)
        )
        self.put(hints)
        self.put_break()
        self.indention = True
        self.whitespace = True
        breaks = True
        for ch in text:
            if ch in BREAKS:
                self._write_break(ch)
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put(ch)
                self.indention = False
                breaks = False


def _chomping(text: str) -> str:
    """`-` strips a missing final break, `+` keeps several; one final break needs no hint."""
    if not text or text[-1] not in BREAKS:
        return "-"
    if len(text) == 1 or text[-2] in BREAKS:
        return "+"
    return ""
