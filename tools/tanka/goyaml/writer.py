"""The character-level half of the yaml.v2 emitter: columns, indentation and scalar writers.

State and rules follow go-yaml v2.4.0 (`emitterc.go`): `whitespace` says the last thing written
was whitespace, `indention` that only indentation has been written on this line. Plain,
single-quoted and double-quoted scalars fold at a space once the column passes 80 (the emitter's
default width, which tk never changes); double-quoted text keeps a space that follows the fold
with a `\\` at the start of the continuation line. Columns count code points, as go-yaml counts
runes.

yaml.v3 reuses this writer with its own settings: indentation 4, an unlimited width (nothing
folds) and no line break written straight after a literal block's header.
"""

from __future__ import annotations

import re

from tools.tanka.goyaml.scalar import BREAKS, Style, is_printable

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


_BREAK = re.compile("[" + "".join(sorted(BREAKS)) + "]")
_OTHER_BREAK = re.compile("[" + "".join(sorted(BREAKS - {"\n"})) + "]")


def _needs_escape(ch: str) -> bool:
    return not is_printable(ch) or ch in BREAKS or ch in '"\\\ufeff'


class Writer:
    """Output buffer plus go-yaml's emitter position state."""

    def __init__(
        self,
        *,
        best_indent: int = BEST_INDENT,
        best_width: int = BEST_WIDTH,
        break_after_block_header: bool = True,
    ) -> None:
        self.best_indent = best_indent
        self.best_width = best_width
        # yaml.v2 ends a `|` header line at once; yaml.v3 waits for the first content line, so
        # a leading line break of the text takes that place (and one empty line is lost).
        self.break_after_block_header = break_after_block_header
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
            self.indent = self.best_indent if flow else 0
        elif not indentless:
            self.indent += self.best_indent

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

    def write_inline(self, text: str) -> None:
        """A scalar's text as `inline_scalar` rendered it: the separating space, then the text."""
        if not self.whitespace:
            self.put(" ")
        self.put(text)
        self.whitespace = False
        self.indention = False

    def write_empty_collection(self, start: str, end: str) -> None:
        """`{}` or `[]`: go-yaml writes an empty mapping or sequence in flow style."""
        self.write_indicator(start, need_whitespace=True, is_whitespace=True, is_indention=False)
        self.write_indicator(end, need_whitespace=False, is_whitespace=False, is_indention=False)

    def write_scalar(self, text: str, style: Style, *, allow_breaks: bool) -> None:
        """The scalar in its selected style; keys (simple keys) never fold."""
        if style is Style.PLAIN:
            self.write_plain(text, allow_breaks=allow_breaks)
        elif style is Style.SINGLE:
            self.write_single_quoted(text, allow_breaks=allow_breaks)
        elif style is Style.DOUBLE:
            self.write_double_quoted(text, allow_breaks=allow_breaks)
        else:
            self.write_literal(text)

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

    def _fits(self, text: str) -> bool:
        """Written at the current column, no space in `text` can be past the width."""
        return self.column + len(text) <= self.best_width or " " not in text

    def _write_folding(self, text: str, *, allow_breaks: bool, quote: bool) -> None:
        """Plain and single-quoted bodies: fold at a lone space past the width, keep breaks."""
        body = text.replace("'", "''") if quote else text
        if (not allow_breaks or self._fits(body)) and not _BREAK.search(text):
            self.put(body)  # what the loop below writes when it neither folds nor breaks
        else:
            self._write_folding_body(text, allow_breaks=allow_breaks, quote=quote)
        self.whitespace = False
        self.indention = False

    def _write_folding_body(self, text: str, *, allow_breaks: bool, quote: bool) -> None:
        spaces = breaks = False
        last = len(text) - 1
        for i, ch in enumerate(text):
            if ch == " ":
                inner = not quote or 0 < i < last  # single quotes never fold the edge spaces
                following = text[i + 1] if i < last else ""
                if (
                    allow_breaks
                    and not spaces
                    and self.column > self.best_width
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

    def write_double_quoted(self, text: str, *, allow_breaks: bool) -> None:
        self.write_indicator('"', need_whitespace=True, is_whitespace=False, is_indention=False)
        if _plain_ascii(text) and (not allow_breaks or self._fits(text)):
            self.put(text)  # what the loop below writes when it neither escapes nor folds
        else:
            self._write_double_body(text, allow_breaks=allow_breaks)
        self.write_indicator('"', need_whitespace=False, is_whitespace=False, is_indention=False)
        self.whitespace = False
        self.indention = False

    def _write_double_body(self, text: str, *, allow_breaks: bool) -> None:
        spaces = False
        last = len(text) - 1
        for i, ch in enumerate(text):
            if _needs_escape(ch):
                self.put(_escape(ch))
                spaces = False
            elif ch == " ":
                if allow_breaks and not spaces and self.column > self.best_width and 0 < i < last:
                    self.write_indent()
                    if text[i + 1] == " ":
                        self.put("\\")  # the next space would otherwise be eaten by folding
                else:
                    self.put(ch)
                spaces = True
            else:
                self.put(ch)
                spaces = False

    def write_literal(self, text: str) -> None:
        self.write_indicator("|", need_whitespace=True, is_whitespace=False, is_indention=False)
        leading_blank = text and (text[0] == " " or text[0] in BREAKS)
        self.put((str(self.best_indent) if leading_blank else "") + _chomping(text))
        if self.break_after_block_header:
            self.put_break()
            self.indention = True
        self.whitespace = True
        if _OTHER_BREAK.search(text):
            self._write_literal_body(text)
        else:
            self._write_literal_lines(text)

    def _write_literal_lines(self, text: str) -> None:
        """`_write_literal_body` for text whose only breaks are `\n`, a line at a time."""
        for number, line in enumerate(text.split("\n")):
            if number:
                self.put_break()
                self.indention = True
            if line:
                self.write_indent()
                self.put(line)
                self.indention = False

    def _write_literal_body(self, text: str) -> None:
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


def inline_scalar(text: str, style: Style, *, allow_breaks: bool) -> str | None:
    """What `write_scalar` writes for `text` when that does not depend on where it starts, else
    None. It does not for a literal block (indented to its place) and for text the writer may
    fold (a space, when breaks are allowed) or break (a line break); for anything else it is
    the same characters at any column, after the one space write_inline puts before it."""
    if style is Style.LITERAL or _BREAK.search(text) or (allow_breaks and " " in text):
        return None
    alone = Writer()
    alone.write_scalar(text, style, allow_breaks=allow_breaks)
    return alone.text()


def _plain_ascii(text: str) -> bool:
    """Nothing in `text` needs a double-quoted escape (printable ASCII, no `"` or `\\`)."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def _chomping(text: str) -> str:
    """`-` strips a missing final break, `+` keeps several; one final break needs no hint."""
    if not text or text[-1] not in BREAKS:
        return "-"
    if len(text) == 1 or text[-2] in BREAKS:
        return "+"
    return ""
