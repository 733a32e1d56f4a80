"""compile_literals: the longest literal at every position, for any literals."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from tools.redaction.literals import compile_literals


def found(literals: list[str], text: str) -> list[tuple[int, str]]:
    pattern = compile_literals(literals)
    assert pattern is not None
    return [(m.start(), m.group(1)) for m in pattern.finditer(text)]


def test_nothing_to_find() -> None:
    assert compile_literals([]) is None
    assert compile_literals([""]) is None


def test_longest_literal_at_each_position_overlaps_included() -> None:
    literals = ["abc", "abcdef", "cde", "abcdefghij"]
    assert found(literals, "xabcdefgy") == [(1, "abcdef"), (3, "cde")]


def test_regex_characters_are_literal() -> None:
    literals = ["a.b*c", "(x|y)", "[z]+", "\\d{2}"]
    assert found(literals, "aXbc a.b*c (x|y) zz [z]+ 12 \\d{2}") == [
        (5, "a.b*c"),
        (11, "(x|y)"),
        (20, "[z]+"),
        (28, "\\d{2}"),
    ]


def test_long_and_deeply_shared_literals_compile() -> None:
    # A certificate-sized value, and many values that are prefixes of one another.
    long = "M" * 5000
    prefixes = ["p" * n for n in range(4, 400)]
    assert found([long, *prefixes], "x" + long + "x") == [(1, long)]
    assert found(prefixes, "p" * 500)[0] == (0, "p" * 399)


@given(
    st.lists(st.text(alphabet="ab.c\n", min_size=1, max_size=12), min_size=1, max_size=20),
    st.text(alphabet="ab.c\nx", max_size=60),
)
def test_same_as_trying_every_literal_at_every_position(literals: list[str], text: str) -> None:
    expected = []
    for start in range(len(text)):
        hits = [w for w in literals if text.startswith(w, start)]
        if hits:
            expected.append((start, max(hits, key=len)))
    pattern = compile_literals(literals)
    assert pattern is not None
    got = [(m.start(), m.group(1)) for m in pattern.finditer(text)]
    assert got == expected
    assert all(isinstance(g, str) for _, g in got)
    assert re.compile(pattern.pattern)  # a plain pattern, compilable again
