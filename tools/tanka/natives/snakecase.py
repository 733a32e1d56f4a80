"""Sprig's `snakecase` and `kebabcase`, which are huandu/xstrings' ToSnakeCase and ToKebabCase.

tk keys the objects of helmTemplate and kustomizeBuild by `snakecase(kind + "_" + name)`, and
Jsonnet patches them by those keys, so this must give xstrings' bytes, quirks included: the
text is cut into words (a run of connectors `-`, `_` or Go spaces; of punctuation; an upper-case
letter and the lower-case letters after it, or a run of upper-case letters; of letters; of
digits; of anything else), and the words are joined by the connector, lower-cased. A digit run
joins the letters before it ("bld4") unless letters follow it ("k8s" -> "k_8s", "http2xx" ->
"http_2xx"). CJK ideographs count as "anything else", so they never split from digits.

Character classes are Go's `unicode` ones (general categories, Go's own space list), not
Python's str methods, which differ (Python's isspace() is true for U+001C..U+001F; its lower()
of U+0130 gives two characters). Go reads the text as UTF-8 and skips invalid bytes, which
arrive here (from JSON or YAML) as U+FFFD, the rune Go decodes them to: U+FFFD is skipped alike.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from enum import Enum, auto

_INVALID = "\ufffd"  # Go's utf8.RuneError
_GO_SPACES = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)  # unicode.IsSpace: Latin-1's list, then the White_Space property


_Class = Callable[[str], bool]


def snakecase(text: str) -> str:
    return _lower_joined(text, "_")


def kebabcase(text: str) -> str:
    return _lower_joined(text, "-")


class _Word(Enum):
    INVALID = auto()  # only U+FFFD left
    NUMBER = auto()
    UPPER = auto()  # starts with an upper-case letter
    LETTERS = auto()
    CONNECTOR = auto()
    PUNCT = auto()
    OTHER = auto()


_Split = tuple[_Word, str, str]  # a word's kind, the word, the text after it


def _lower_joined(text: str, connector: str) -> str:
    if not text:
        return ""
    out: list[str] = []
    kind, word, rest = _next_word(text)
    while rest:
        if kind is not _Word.CONNECTOR:
            out.append(_lowered(kind, word, connector))
        previous, previous_word = kind, word
        kind, word, rest = _next_word(rest)
        if previous is _Word.NUMBER:
            kind, word, rest = _glued(kind, word, rest, out, connector)
            if kind not in (_Word.INVALID, _Word.PUNCT, _Word.CONNECTOR):
                out.append(connector)
        elif previous is _Word.CONNECTOR:
            out.append(_lowered(previous, previous_word, connector))
        elif previous is _Word.PUNCT:
            pass
        elif kind is not _Word.NUMBER:
            if kind not in (_Word.CONNECTOR, _Word.PUNCT):
                out.append(connector)
        elif rest:
            kind, word, rest = _number_after_word(word, rest, out, connector)
    out.append(_lowered(kind, word, connector))
    return "".join(out)


def _glued(kind: _Word, word: str, rest: str, out: list[str], connector: str) -> _Split:
    """The letters and digits from `word` on, written glued to the number before them
    ("2m3s"); returns the word after them."""
    while kind in (_Word.LETTERS, _Word.NUMBER):
        out.append(_lowered(kind, word, connector))
        kind, word, rest = _next_word(rest)
    return kind, word, rest


def _number_after_word(number: str, rest: str, out: list[str], connector: str) -> _Split:
    """Writes a number that follows a word, and returns the word after what it wrote."""
    kind, word, rest = _next_word(rest)
    if kind is not _Word.LETTERS:
        # A number between words belongs to the word before it ("bld4_floor").
        out.append(number)
        if kind not in (_Word.CONNECTOR, _Word.PUNCT):
            out.append(connector)
        return kind, word, rest
    # Letters after the number: it starts a word of its own ("http_2xx").
    out.append(connector)
    out.append(number)
    kind, word, rest = _glued(kind, word, rest, out, connector)
    if kind not in (_Word.INVALID, _Word.CONNECTOR, _Word.PUNCT):
        out.append(connector)
    return kind, word, rest


def _next_word(text: str) -> _Split:
    """The first word of `text`, its kind and the text after it (sizes count the U+FFFD
    skipped on the way, as Go's byte offsets count the invalid bytes)."""
    if not text:
        return _Word.INVALID, "", ""
    r, size = _next_valid(text, 0, _INVALID)
    end = size
    if r == _INVALID:
        return _Word.INVALID, text[:end], text[end:]
    if _is_connector(r):
        kind = _Word.CONNECTOR
        end = _extend(text, end, r, _is_connector)
    elif _is_punct(r):
        kind = _Word.PUNCT
        end = _extend(text, end, r, _is_punct)
    elif _is_upper(r):
        kind = _Word.UPPER
        end = _upper_word(text, end, r)
    elif _is_alphabet(r):
        kind = _Word.LETTERS
        end = _extend(text, end, r, _is_lower_letter)
    elif _is_number(r):
        kind = _Word.NUMBER
        end = _extend(text, end, r, _is_number)
    else:
        kind = _Word.OTHER
        end = _extend(text, end, r, _is_other)
    return kind, text[:end], text[end:]


def _upper_word(text: str, end: int, r: str) -> int:
    """Where a word starting with an upper-case letter (ending at `end`) ends: after the lower-case
    letters that follow it, or after a run of capitals, less the last one when letters follow
    it ("HTTPServer" is "HTTP" then "Server")."""
    if end == len(text):
        return end
    r, size = _next_valid(text, end, r)
    if _is_upper(r):
        last = size
        end += size
        while end < len(text):
            r, size = _next_valid(text, end, r)
            if not _is_upper(r):
                break
            last = size
            end += size
        if end < len(text) and _is_alphabet(r):
            end -= last
    elif _is_alphabet(r):
        end = _extend(text, end + size, r, _is_lower_letter)
    return end


def _extend(text: str, end: int, r: str, belongs: _Class) -> int:
    """`end` moved past the runes that still `belong` to the word."""
    while end < len(text):
        r, size = _next_valid(text, end, r)
        if not belongs(r):
            break
        end += size
    return end


def _next_valid(text: str, start: int, previous: str) -> tuple[str, int]:
    """The first rune from `start` that is not U+FFFD and how many runes that took; `previous`
    (and all that is left) when none is."""
    for at in range(start, len(text)):
        if not _invalid(text[at]):
            return text[at], at + 1 - start
    return previous, len(text) - start


def _lowered(kind: _Word, word: str, connector: str) -> str:
    if kind not in (_Word.UPPER, _Word.CONNECTOR):
        return word
    return "".join(
        connector if _is_connector(r) else _go_to_lower(r) if _is_upper(r) else r for r in word
    )


def _go_to_lower(r: str) -> str:
    # unicode.ToLower maps one rune to one rune; only U+0130's full mapping has more (i + dot).
    return r.lower()[0]


def _invalid(r: str) -> bool:
    return r == _INVALID or "\ud800" <= r <= "\udfff"


def _category(r: str) -> str:
    return unicodedata.category(r)


def _is_connector(r: str) -> bool:
    return r in "-_" or r in _GO_SPACES


def _is_punct(r: str) -> bool:
    return _category(r).startswith("P")


def _is_upper(r: str) -> bool:
    return _category(r) == "Lu"


def _is_number(r: str) -> bool:
    return _category(r).startswith("N")


def _is_alphabet(r: str) -> bool:
    """A letter that is not a CJK ideograph (xstrings' isAlphabet)."""
    if not _category(r).startswith("L"):
        return False
    return not (
        "\u4e00" <= r <= "\u9fcc" or "\u3400" <= r <= "\u4d85" or "\U00020000" <= r <= "\U0002b81d"
    )


def _is_lower_letter(r: str) -> bool:
    return _is_alphabet(r) and not _is_upper(r)


def _is_other(r: str) -> bool:
    return not (_is_connector(r) or _is_alphabet(r) or _is_number(r) or _is_punct(r))
