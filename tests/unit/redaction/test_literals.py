"""compile_literals: the longest literal at a position, for any literals."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tools.redaction.literals import compile_literals


def leftmost(literals: list[str], text: str) -> list[tuple[int, str]]:
    pattern = compile_literals(literals)
    assert pattern is not None
    return [(m.start(), m.group()) for m in pattern.finditer(text)]


def test_nothing_to_find() -> None:
    assert compile_literals([]) is None
    assert compile_literals([""]) is None


def test_leftmost_longest_and_overlaps_through_match() -> None:
    literals = ["abc", "abcdef", "cde", "abcdefghij"]
    pattern = compile_literals(literals)
    assert pattern is not None
    assert leftmost(literals, "xabcdefgy abc") == [(1, "abcdef"), (10, "abc")]
    overlap = pattern.match("xabcdefgy", 3)
    assert overlap is not None
    assert overlap.group() == "cde"


def test_regex_characters_are_literal() -> None:
    literals = ["a.b*c", "(x|y)", "[z]+", "\\d{2}"]
    assert leftmost(literals, "aXbc a.b*c (x|y) zz [z]+ 12 \\d{2}") == [
        (5, "a.b*c"),
        (11, "(x|y)"),
        (20, "[z]+"),
        (28, "\\d{2}"),
    ]


def test_long_and_deeply_shared_literals_compile() -> None:
    # A certificate-sized value, and many values that are prefixes of one another.
    long = "M" * 5000
    prefixes = ["p" * n for n in range(4, 400)]
    assert leftmost([long, *prefixes], "x" + long + "x") == [(1, long)]
    assert leftmost(prefixes, "p" * 500)[0] == (0, "p" * 399)


def test_spaces_and_newlines_also_match_a_line_break_behind_a_diff_prefix() -> None:
    pattern = compile_literals(["one two three", "a\nb"])
    assert pattern is not None
    for text in ("one two three", "one\n+    two three", "one two\n three", "one\ntwo\n-three"):
        found = pattern.match(text)
        assert found is not None
        assert found.group() == text
    assert pattern.match("one  two three") is None
    assert pattern.match("a\n+  b") is not None


@given(  # without spaces and newlines, which also match line breaks (tested above)
    st.lists(st.text(alphabet="ab.c*", min_size=1, max_size=12), min_size=1, max_size=20),
    st.text(alphabet="ab.c*x", max_size=60),
)
def test_same_as_trying_every_literal_at_every_position(literals: list[str], text: str) -> None:
    pattern = compile_literals(literals)
    assert pattern is not None
    for start in range(len(text) + 1):
        hits = [w for w in literals if text.startswith(w, start)]
        found = pattern.match(text, start)
        assert (found.group() if found else None) == (max(hits, key=len) if hits else None)
