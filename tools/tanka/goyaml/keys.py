"""Map key order of yaml.v2 (v2.4.0 `keyList.Less`) for string keys.

Keys compare rune by rune. At the first difference: two letters compare by code point; a letter
sorts after anything that is not a letter; otherwise the digit runs starting there are read as
numbers and compared (`file9` < `file10`), shorter run first on a tie, then the runes themselves.
A key that is a prefix of the other sorts first. tk marshals every manifest through this order,
so it decides the line order of every rendered object.

yaml.v3 (v3.0.1, used by manifestYamlFromJson) changes one rule, selected with `v3=True`: when
exactly one of the differing runes is a letter and the rune before them (shared by both keys) is
a digit, the letter sorts first (`a1b` < `a1_`, while `ab` > `a_` in both versions).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

_INT64_MASK = (1 << 64) - 1


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch).startswith("L")  # Go's unicode.IsLetter


def _is_digit(ch: str) -> bool:
    return unicodedata.category(ch) == "Nd"  # Go's unicode.IsDigit


def _wrap_int64(value: int) -> int:
    # Go accumulates the digit run in an int64 that silently wraps around.
    value &= _INT64_MASK
    return value - (1 << 64) if value >= 1 << 63 else value


def _digit_run(text: str, start: int, initial: int) -> tuple[int, int]:
    """(value, end) of the digit run at `start`; yaml.v2 subtracts '0' even for non-ASCII digits."""
    value, end = initial, start
    while end < len(text) and _is_digit(text[end]):
        value = _wrap_int64(value * 10 + ord(text[end]) - ord("0"))
        end += 1
    return value, end


def key_less(a: str, b: str, *, v3: bool = False) -> bool:
    """yaml.v2's Less for two string keys (yaml.v3's with `v3`)."""
    for i in range(min(len(a), len(b))):
        ca, cb = a[i], b[i]
        if ca == cb:
            continue
        letter_a, letter_b = _is_letter(ca), _is_letter(cb)
        if letter_a and letter_b:
            return ca < cb
        if letter_a or letter_b:
            after_digit = v3 and i > 0 and _is_digit(a[i - 1])
            return letter_a if after_digit else letter_b
        start = 0
        if ca == "0" or cb == "0":
            # After a non-zero digit, a run of zeros is part of a larger number: count from 1.
            j = i - 1
            while j >= 0 and _is_digit(a[j]):
                if a[j] != "0":
                    start = 1
                    break
                j -= 1
        num_a, end_a = _digit_run(a, i, start)
        num_b, end_b = _digit_run(b, i, start)
        if num_a != num_b:
            return num_a < num_b
        if end_a != end_b:
            return end_a < end_b
        return ca < cb
    return len(a) < len(b)


def _compare(a: str, b: str, *, v3: bool) -> int:
    if key_less(a, b, v3=v3):
        return -1
    return 1 if key_less(b, a, v3=v3) else 0


# ASCII letters moved above every other ASCII character, each group keeping its own order.
_LETTERS_LAST = {code: 0x100 + code for code in (*range(0x41, 0x5B), *range(0x61, 0x7B))}
_DIGIT = re.compile("[0-9]")


def sorted_keys(keys: Iterable[str], *, v3: bool = False) -> list[str]:
    """Keys in the order yaml.v2 (or, with `v3`, yaml.v3) writes them."""
    listed = list(keys)
    joined = "".join(listed)
    if joined.isascii() and not _DIGIT.search(joined):
        # Without digits (most keys) key_less is plain text order with letters after all else,
        # in both versions, so the keys sort by a translated copy: one C comparison per pair
        # instead of two key_less calls.
        return sorted(listed, key=lambda key: key.translate(_LETTERS_LAST))
    return sorted(listed, key=functools.cmp_to_key(functools.partial(_compare, v3=v3)))
