"""Escapes in quoted Jsonnet strings, checked and decoded as go-jsonnet does."""

from __future__ import annotations

from tools.tanka.source.jsonnet.ast import LocationRange
from tools.tanka.source.jsonnet.errors import StaticError

_SIMPLE = {'"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r"}
_SIMPLE["t"] = "\t"
_HEX = frozenset("0123456789abcdefABCDEF")


def _hex4(text: str) -> int | None:
    if len(text) != 4 or not all(c in _HEX for c in text):
        return None
    return int(text, 16)


def string_unescape(loc: LocationRange, s: str) -> str:  # noqa: PLR0912
    """The value of a quoted string's body `s`; raises StaticError for a bad escape."""
    if "\\" not in s:  # most strings: nothing to decode
        return s
    out: list[str] = []
    i = 0
    n = len(s)
    while i < n:
        if s[i] != "\\":  # copy up to the next escape at once
            end = s.find("\\", i)
            end = n if end < 0 else end
            out.append(s[i:end])
            i = end
            continue
        i += 1
        if i >= n:
            raise StaticError("Truncated escape sequence in string literal.", loc)
        c2 = s[i]
        i += 1
        if c2 in _SIMPLE:
            out.append(_SIMPLE[c2])
            continue
        if c2 != "u":
            raise StaticError(f"Unknown escape sequence in string literal: \\{c2}", loc)
        # go-jsonnet measures these in bytes; the quoted text is ASCII wherever it matters.
        if len(s[i : i + 4].encode()) < 4:
            raise StaticError("Truncated unicode escape sequence in string literal.", loc)
        code = _hex4(s[i : i + 4])
        if code is None:
            raise StaticError(f"Unicode escape sequence was malformed: {s[0:4]}", loc)
        i += 4
        if 0xD800 <= code <= 0xDFFF:
            if len(s[i : i + 6].encode()) < 6:
                raise StaticError(
                    "Truncated unicode surrogate pair escape sequence in string literal.", loc
                )
            if s[i : i + 2] != "\\u":
                raise StaticError(
                    "Unicode surrogate pair escape sequence missing low surrogate in string "
                    "literal.",
                    loc,
                )
            i += 2
            low = _hex4(s[i : i + 4])
            if low is None:
                raise StaticError(
                    f"Unicode low surrogate escape sequence was malformed: {s[0:4]}", loc
                )
            i += 4
            if code <= 0xDBFF and 0xDC00 <= low <= 0xDFFF:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            else:
                code = 0xFFFD
        out.append(chr(code))
    return "".join(out)
