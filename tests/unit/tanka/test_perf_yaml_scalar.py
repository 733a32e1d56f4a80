"""The YAML emitter's whole-string fast paths give exactly what the per-character loops give."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tools.tanka.goyaml.scalar import _analyze_by_character, analyze
from tools.tanka.goyaml.writer import Writer

# Every character the ASCII rules look at, plus letters, breaks, a TAB and a non-ASCII letter.
_ASCII = st.text(alphabet=st.sampled_from(" -:#?.ab'\"!|>{}[],&*%@`="), min_size=1, max_size=12)
_LINES = st.text(alphabet=st.sampled_from(" \n\n:#-ab\t\r\xe9"), min_size=1, max_size=12)


@given(st.one_of(_ASCII, _LINES))
@example("-")
@example("- a")
@example("? x")
@example("a:")
@example("a: b")
@example("a #b")
@example("a#b")
@example("---x")
@example("...")
@example(" a")
@example("a ")
@example("a\n b")
@example("a \nb")
@example("a\nb ")
@example("\n")
def test_printable_ascii_analysis_matches_the_character_loop(text: str) -> None:
    for v3 in (False, True):
        assert analyze(text, v3=v3) == _analyze_by_character(text, v3=v3)


# Writer fast paths: whole-string writes vs the character loops, from any column and indent.
_TEXT = st.text(alphabet=st.sampled_from("ab '\"\\\n\r\t\u2028\xe9#:"), max_size=30)
_LONG = st.text(alphabet=st.sampled_from("ab '\n"), max_size=120)


def _writer(column: int, indent: int) -> Writer:
    writer = Writer()
    writer.indent = indent
    writer.put("x" * column)
    writer.whitespace = writer.indention = False
    return writer


def _state(writer: Writer) -> tuple[str, int, bool, bool]:
    return writer.text(), writer.column, writer.whitespace, writer.indention


@settings(max_examples=300)
@given(
    st.one_of(_TEXT, _LONG),
    st.integers(0, 100),
    st.integers(0, 8),
    st.booleans(),
    st.booleans(),
)
@example("ab c", 79, 0, True, False)  # the space lands just past the width
@example("abc ", 78, 0, True, False)
@example("a'b c", 78, 2, True, True)  # only once `'` is doubled
def test_folding_fast_path_matches_the_character_loop(
    text: str, column: int, indent: int, allow_breaks: bool, quote: bool
) -> None:
    fast, slow = _writer(column, indent), _writer(column, indent)
    fast._write_folding(text, allow_breaks=allow_breaks, quote=quote)
    slow._write_folding_body(text, allow_breaks=allow_breaks, quote=quote)
    slow.whitespace = slow.indention = False
    assert _state(fast) == _state(slow)


@settings(max_examples=300)
@given(st.one_of(_TEXT, _LONG), st.integers(0, 100), st.integers(0, 8), st.booleans())
@example("ab c", 78, 0, True)
def test_double_quoted_fast_path_matches_the_character_loop(
    text: str, column: int, indent: int, allow_breaks: bool
) -> None:
    fast, slow = _writer(column, indent), _writer(column, indent)
    fast.write_double_quoted(text, allow_breaks=allow_breaks)
    slow.write_indicator('"', need_whitespace=True, is_whitespace=False, is_indention=False)
    slow._write_double_body(text, allow_breaks=allow_breaks)
    slow.write_indicator('"', need_whitespace=False, is_whitespace=False, is_indention=False)
    assert _state(fast) == _state(slow)


@given(
    st.text(alphabet=st.sampled_from("ab \n"), max_size=40),
    st.integers(0, 10),
    st.integers(0, 8),
    st.booleans(),
)
def test_literal_lines_match_the_character_loop(
    text: str, column: int, indent: int, header_break: bool
) -> None:
    fast, slow = _writer(column, indent), _writer(column, indent)
    for writer in (fast, slow):
        writer.whitespace = True
        writer.indention = header_break
    fast._write_literal_lines(text)
    slow._write_literal_body(text)
    assert _state(fast) == _state(slow)
