"""One compiled regex that finds, at any position, the longest of many literal strings.

Literal but for line breaks: a space in a literal also matches a line break followed by a unified
diff's `+`/`-`/` ` prefix and indentation, and so does a newline. YAML folds a long plain scalar at
a space (tanka_show prints `k: a long value` over two lines), and a diff puts each line of a value
behind its own prefix; either way the value is still found, and masked as one run.

A plain alternation of a thousand literals makes Python's regex engine try every one of them at
every position of the text (about 0.2 MB/s in bench/redaction.py); the same literals arranged as a
prefix tree (`ab(?:c|d)` rather than `abc|abd`) fail after a character or two at most positions
(over 10 MB/s). The tree is only built `_TREE_DEPTH` characters deep, below which the remaining
tails are a plain alternation, longest first: that bounds the nesting of groups (and this module's
recursion) whatever the literals are, e.g. a thousand-character certificate, while literals rarely
share more than a few leading characters.

At any position the pattern matches the longest literal that starts there, so `search` finds the
leftmost occurrence at its longest, and `match(text, pos)` the longest one starting at `pos` (how
a caller finds occurrences overlapping an earlier match). A lookahead pattern reporting every
start at once would be simpler to use, but runs at half the speed: the engine can no longer skip
positions whose character starts no literal.
"""

from __future__ import annotations

import re
from collections.abc import Collection

_TREE_DEPTH = 6
_LINE_BREAK = r"\n[-+ ]?[ \t]*"
_FLEXIBLE = {" ": f"(?: |{_LINE_BREAK})", "\n": _LINE_BREAK}


def compile_literals(literals: Collection[str]) -> re.Pattern[str] | None:
    """A pattern matching the longest of `literals` at a position; None when there are none."""
    words = sorted({w for w in literals if w})
    if not words:
        return None
    return re.compile(_node(words, 0))


def _node(words: list[str], depth: int) -> str:
    """The pattern for `words` (sorted, sharing their first `depth` characters), after those."""
    if depth >= _TREE_DEPTH:
        return _tails(words, depth)
    ends_here = any(len(w) == depth for w in words)
    children: dict[str, list[str]] = {}
    for word in words:
        if len(word) > depth:
            children.setdefault(word[depth], []).append(word)
    alternatives = [_literal(c) + _node(group, depth + 1) for c, group in children.items()]
    return _optional(alternatives, ends_here)


def _tails(words: list[str], depth: int) -> str:
    tails = {w[depth:] for w in words}
    # Longest first: the engine takes the first alternative that matches.
    longest_first = sorted((t for t in tails if t), key=lambda t: (-len(t), t))
    return _optional([_literal(t) for t in longest_first], "" in tails)


def _literal(text: str) -> str:
    if " " not in text and "\n" not in text:
        return re.escape(text)
    return "".join(_FLEXIBLE.get(c) or re.escape(c) for c in text)


def _optional(alternatives: list[str], may_end: bool) -> str:
    """Any one of `alternatives`; with `may_end`, also nothing (greedy: a longer match wins)."""
    if not alternatives:
        return ""
    if len(alternatives) == 1 and not may_end:
        return alternatives[0]
    group = "(?:" + "|".join(alternatives) + ")"
    return group + "?" if may_end else group
