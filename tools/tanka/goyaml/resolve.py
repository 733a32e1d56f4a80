"""Would yaml.v2 read this string back as something else? Then it must be quoted.

yaml.v2 (v2.4.0) marshals a Go string plainly only when its YAML 1.1 resolver, fed the unquoted
text, answers "string" and the text is not a base-60 float. The resolver looks at the first byte:
a sign or digit may start a timestamp, an integer (Go base prefixes, `_` ignored) or a float; `.`
may start a float; `yYnNtTfFoO~` and the empty string are looked up in a small table of booleans
and nulls. Anything else is a string without further checks, which is why `<<` stays plain even
though the table lists it.

yaml.v3 (v3.0.1) drops the YAML 1.1 booleans from its resolver but its Marshal quotes them anyway
(`isOldBool`), so the quoted set is the same; `v3=True` adds the one difference, its `0o` retry.
"""

from __future__ import annotations

import re

_BOOLS = "y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF"
_OTHERS = "~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<"
_TABLE_WORDS = frozenset(f"{_BOOLS} {_OTHERS}".split())
_SIGN_OR_DIGIT = frozenset("+-0123456789")
_TABLE_FIRST = frozenset("yYnNtTfFoO~")

_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_BASE60_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")

# Go's strconv.ParseInt/ParseUint with base 0 (prefix picks the base), after `_` removal.
_GO_INT = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_GO_UINT_MAX = (1 << 64) - 1

# yaml.v2's timestamp layouts as Go's time.Parse reads them: 4-digit year, 1-2 digit month, day,
# hour, minute and second; optional fraction; `Z` or `+hh:mm` zone when a `T`/`t` separates.
_DATE = r"([0-9]{4})-([0-9][0-9]?)-([0-9][0-9]?)"
_CLOCK = r"([0-9][0-9]?):([0-9][0-9]?):([0-9][0-9]?)(?:[.,][0-9]+)?"
_TIMESTAMPS = (
    re.compile(_DATE + r"[Tt]" + _CLOCK + r"(?:Z|[+-][0-9][0-9]:[0-9][0-9])"),
    re.compile(_DATE + " " + _CLOCK),
    re.compile(_DATE),
)


def needs_quotes(text: str, *, v3: bool = False) -> bool:
    """True when plain `text` would not read back as this string (yaml.v2/v3 then double-quote)."""
    return not _resolves_to_str(text, v3=v3) or _is_base60_float(text)


def _resolves_to_str(text: str, *, v3: bool) -> bool:
    if text == "":
        return False  # null
    first = text[0]
    if first in _TABLE_FIRST:
        return text not in _TABLE_WORDS
    if first == ".":
        return text not in _TABLE_WORDS and not _parses_as_float(text, _DOT_FLOAT)
    if first in _SIGN_OR_DIGIT:
        return text not in _TABLE_WORDS and not _is_number_or_time(text, v3=v3)
    return True


def _is_number_or_time(text: str, *, v3: bool) -> bool:
    if _is_timestamp(text):
        return True
    plain = text.replace("_", "")
    if _is_go_int(plain) or _parses_as_float(plain, _YAML_STYLE_FLOAT):
        return True
    return _is_signed_prefix_retry(plain, v3=v3)


def _is_signed_prefix_retry(plain: str, *, v3: bool) -> bool:
    """The resolver's last tries: ParseInt(plain[2:], 2) after `0b` (v3 also 8 after `0o`).

    Base-0 ParseInt already read every unsigned form, but an explicit base accepts a sign after
    the prefix, so `0b-1` and `0b+1` (and in v3 `0o+7`) are integers. The `-0b`/`-0o` retries
    add nothing: `-0b-1` is refused either way.
    """
    bases = {"0b": (2, "01"), "0o": (8, "01234567")} if v3 else {"0b": (2, "01")}
    base_digits = bases.get(plain[:2])
    if base_digits is None:
        return False
    base, digits = base_digits
    sign, body = plain[2:3], plain[3:]
    if sign not in ("+", "-") or not body or any(ch not in digits for ch in body):
        return False
    value = int(body, base)
    return value <= 1 << 63 if sign == "-" else value < 1 << 63


def _is_go_int(plain: str) -> bool:
    match = _GO_INT.fullmatch(plain)
    if match is None:
        return False
    sign, digits = match.groups()
    value = _go_base0(digits)
    if sign == "-":
        return value <= 1 << 63
    if sign == "+":
        return value < 1 << 63  # ParseUint, the second try, refuses any sign
    return value <= _GO_UINT_MAX


def _go_base0(digits: str) -> int:
    prefix = digits[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        return int(digits[2:], {"0x": 16, "0o": 8, "0b": 2}[prefix])
    if len(digits) > 1 and digits[0] == "0":
        return int(digits, 8)
    return int(digits)


def _parses_as_float(text: str, pattern: re.Pattern[str]) -> bool:
    # Go's ParseFloat fails on overflow (`1e400`), so such text stays a string.
    return pattern.fullmatch(text) is not None and abs(float(text)) != float("inf")


def _is_timestamp(text: str) -> bool:
    if len(text) < 5 or not text[:4].isascii() or not text[:4].isdigit() or text[4] != "-":
        return False
    for layout in _TIMESTAMPS:
        match = layout.fullmatch(text)
        if match is not None and _valid_fields(match.groups()):
            return True
    return False


def _valid_fields(groups: tuple[str | None, ...]) -> bool:
    import calendar  # noqa: PLC0415 - tk start-up: 2.4 ms (datetime), for date-like strings only

    year, month, day = (int(g or "0") for g in groups[:3])
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year or 2000, month)[1]:
        return False
    if len(groups) == 3:
        return True
    hour, minute, second = (int(g or "0") for g in groups[3:6])
    return hour < 24 and minute < 60 and second < 60


def _is_base60_float(text: str) -> bool:
    if not text or text[0] not in _SIGN_OR_DIGIT or ":" not in text:
        return False
    return _BASE60_FLOAT.fullmatch(text) is not None
