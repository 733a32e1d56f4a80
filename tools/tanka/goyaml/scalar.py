"""Scalar analysis and style choice of the yaml.v2 emitter (go-yaml v2.4.0, a libyaml port).

The marshaller asks for a style (plain, double-quoted or literal); the emitter then looks at the
characters (indicators, leading/trailing spaces, line breaks, unprintable characters) and falls
back from plain to single-quoted to double-quoted, or from literal to double-quoted, when the
requested style cannot represent the text. Characters are code points; "printable" is go-yaml's
set, which leaves out TAB and everything above U+FFFF (emoji get `\\U` escapes).

yaml.v3 differs in two places, selected with `v3=True`: a TAB still rules out plain and
single-quoted text but no longer a literal block, and its resolver has one more integer form.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum

from tools.tanka.gojson.encode import go_float_g
from tools.tanka.goyaml.resolve import needs_quotes

BREAKS = frozenset("\r\n\x85\u2028\u2029")
_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_FLOW_INDICATORS = frozenset(",?[]{}")
SIMPLE_KEY_MAX_BYTES = 128


class Style(Enum):
    PLAIN = "plain"
    SINGLE = "single"
    DOUBLE = "double"
    LITERAL = "literal"


def is_printable(ch: str) -> bool:
    code = ord(ch)
    return (
        code == 0x0A
        or 0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
    )


def _is_blank(text: str, i: int) -> bool:
    return i < len(text) and text[i] in " \t"


def _is_blankz(ch: str) -> bool:
    return ch in " \t\0" or ch in BREAKS


@dataclass(frozen=True, slots=True)
class Analysis:
    multiline: bool
    plain_allowed: bool  # in block context; flow context never holds a scalar here
    single_allowed: bool
    block_allowed: bool


def analyze(text: str, *, v3: bool = False) -> Analysis:
    """go-yaml's yaml_emitter_analyze_scalar, block context only."""
    if not text:
        return _EMPTY
    if text.isascii():
        if text.isprintable():
            return _analyze_printable_ascii(text)
        if _ASCII_LINES.fullmatch(text):
            return _analyze_ascii_lines(text)
    return _analyze_by_character(text, v3=v3)


_EMPTY = Analysis(multiline=False, plain_allowed=True, single_allowed=True, block_allowed=False)
# The single-line answers, by (plain allowed, block allowed): shared, as Analysis is frozen.
_ONE_LINE = {
    (plain, block): Analysis(
        multiline=False, plain_allowed=plain, single_allowed=True, block_allowed=block
    )
    for plain in (False, True)
    for block in (False, True)
}
_ASCII_LINES = re.compile("[\x20-\x7e\n]*")


def _analyze_printable_ascii(text: str) -> Analysis:
    """The character loop's answer, from whole-string checks, for text of U+0020..U+007E only
    (most scalars): no breaks, tabs or unprintables, so only edge spaces and indicators count."""
    first, trailing = text[0], text[-1] == " "
    indicators = (
        first in _FIRST_INDICATORS
        or (first in "?:-" and (len(text) == 1 or text[1] == " "))
        or text.startswith(("---", "..."))
        or ": " in text
        or text[-1] == ":"
        or " #" in text
    )
    plain = not (first == " " or trailing or indicators)
    return _ONE_LINE[plain, not trailing]


def _analyze_ascii_lines(text: str) -> Analysis:
    """The character loop's answer for printable ASCII with `\n` breaks (config files): a line
    break rules out plain text, so only spaces next to a break and a trailing space count."""
    space_break = " \n" in text
    return Analysis(
        multiline=True,
        plain_allowed=False,
        single_allowed=not (space_break or "\n " in text),
        block_allowed=not (space_break or text[-1] == " "),
    )


def _analyze_by_character(text: str, *, v3: bool) -> Analysis:
    indicators = text.startswith(("---", "..."))
    special = line_breaks = leading = trailing_space = break_space = space_break = False
    previous_space = previous_break = False
    preceded_by_blank = True
    tabs = v3 and "\t" in text  # v3 sets its own flag for a TAB instead of "special"
    last = len(text) - 1
    for i, ch in enumerate(text):
        followed_by_blank = i == last or _is_blank(text, i + 1)
        indicators = indicators or _is_indicator(ch, i, followed_by_blank, preceded_by_blank)
        special = special or (not is_printable(ch) and not (tabs and ch == "\t"))
        if ch == " ":
            leading = leading or i == 0
            trailing_space = trailing_space or i == last
            break_space = break_space or previous_break
            previous_space, previous_break = True, False
        elif ch in BREAKS:
            line_breaks = True
            leading = leading or i == 0
            space_break = space_break or previous_space
            previous_space, previous_break = False, True
        else:
            previous_space = previous_break = False
        preceded_by_blank = _is_blankz(ch)
    ends_badly = trailing_space or text[-1] in BREAKS
    quoting_blocked = break_space or space_break or special or tabs
    plain = not (leading or ends_badly or quoting_blocked or line_breaks)
    return Analysis(
        multiline=line_breaks,
        plain_allowed=plain and not indicators,
        single_allowed=not quoting_blocked,
        block_allowed=not (trailing_space or space_break or special),
    )


def _is_indicator(ch: str, i: int, followed_by_blank: bool, preceded_by_blank: bool) -> bool:
    """Does `ch` at `i` stop a plain scalar in block context (go-yaml's block_indicators)?"""
    if i == 0:
        if ch in _FIRST_INDICATORS:
            return True
        return ch in "?:-" and followed_by_blank
    if ch == ":":
        return followed_by_blank
    return ch == "#" and preceded_by_blank


def requested_style(text: str, *, v3: bool = False) -> Style:
    """yaml.v2's (v3's) stringv: literal with a `\\n`, quoted unless it reads back as a string."""
    if "\n" in text:
        return Style.LITERAL
    return Style.DOUBLE if needs_quotes(text, v3=v3) else Style.PLAIN


def select_style(text: str, analysis: Analysis, requested: Style, *, simple_key: bool) -> Style:
    """go-yaml's yaml_emitter_select_scalar_style (no tags, block context)."""
    style = requested
    if simple_key and analysis.multiline:
        style = Style.DOUBLE
    if style is Style.PLAIN and (not analysis.plain_allowed or (not text and simple_key)):
        style = Style.SINGLE
    if style is Style.SINGLE and not analysis.single_allowed:
        style = Style.DOUBLE
    if style is Style.LITERAL and (not analysis.block_allowed or simple_key):
        style = Style.DOUBLE
    return style


def scalar_text(value: object, *, v3: bool = False) -> tuple[str, Style]:
    """The text and requested style yaml.v2 (v3) uses for a JSON scalar (numbers are float64)."""
    if value is None:
        return "null", Style.PLAIN
    if isinstance(value, bool):
        return ("true" if value else "false"), Style.PLAIN
    if isinstance(value, int | float):
        return _float_text(float(value)), Style.PLAIN
    if isinstance(value, str):
        return value, requested_style(value, v3=v3)
    raise TypeError(f"cannot render a {type(value).__name__} as YAML: only JSON values are allowed")


def _float_text(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    return go_float_g(value)


def is_simple_key(text: str, analysis: Analysis) -> bool:
    """go-yaml writes `key: value` when the key has no line break and is at most 128 bytes."""
    size = len(text.encode("utf-8", "surrogatepass"))
    return not analysis.multiline and size <= SIMPLE_KEY_MAX_BYTES
