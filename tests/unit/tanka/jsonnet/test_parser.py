"""The lexer and parser: go-jsonnet's error messages and node locations."""

from __future__ import annotations

import pytest

from tests.unit.tanka.jsonnet.upstream_parser_cases import ERRORS, LEX_ERRORS, VALID
from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.errors import StaticError
from tools.tanka.source.jsonnet.lexer import lex
from tools.tanka.source.jsonnet.parser import MAX_NESTING, snippet_to_raw_ast


@pytest.mark.parametrize("source", VALID)
def test_upstream_valid_programs_parse(source: str) -> None:
    assert isinstance(snippet_to_raw_ast("test", source), ast.Node)


@pytest.mark.parametrize(("source", "expected"), ERRORS)
def test_upstream_parse_errors_word_for_word(source: str, expected: str) -> None:
    with pytest.raises(StaticError) as caught:
        snippet_to_raw_ast("test", source)
    assert str(caught.value) == expected


@pytest.mark.parametrize(("source", "expected"), LEX_ERRORS)
def test_upstream_lex_errors_word_for_word(source: str, expected: str) -> None:
    with pytest.raises(StaticError) as caught:
        lex("snippet", source)
    assert str(caught.value) == expected


def where(node: ast.Node | ast.LocationRange) -> str:
    loc = node if isinstance(node, ast.LocationRange) else node.loc_range
    return str(loc).removeprefix("f:")


def test_locations_span_from_first_to_past_last_character() -> None:
    node = snippet_to_raw_ast("f", "local x = 1 + 2;\n{ a: x }")
    assert isinstance(node, ast.Local)
    assert where(node) == "(1:1)-(2:9)"
    assert where(node.binds[0].loc_range) == "1:7-16"
    body = node.binds[0].body
    assert isinstance(body, ast.Binary)
    assert (where(body), where(body.left), where(body.right)) == ("1:11-16", "1:11-12", "1:15-16")
    obj = node.body
    assert isinstance(obj, ast.Object)
    assert where(obj.fields[0].loc_range) == "2:3-7"


def test_postfix_chains_start_at_the_first_token() -> None:
    node = snippet_to_raw_ast("f", "a.b[1](2) { c: 3 }")
    assert isinstance(node, ast.ApplyBrace)
    assert where(node) == "1:1-19"
    call = node.left
    assert isinstance(call, ast.Apply)
    assert where(call) == "1:1-10"
    index = call.target
    assert isinstance(index, ast.Index)
    assert where(index) == "1:1-7"


def test_columns_count_utf8_bytes_like_go_jsonnet() -> None:
    # 'é' is two bytes: go-jsonnet's columns are byte offsets, so `x` starts at column 10.
    node = snippet_to_raw_ast("f", "['é', x]")
    assert isinstance(node, ast.Array)
    assert where(node.elements[1].expr) == "1:8-9"
    node = snippet_to_raw_ast("f", "'😀' + y")
    assert isinstance(node, ast.Binary)
    assert where(node.right) == "1:10-11"


def test_operator_precedence_and_associativity() -> None:
    node = snippet_to_raw_ast("f", "1 - 2 - 3 * 4 == -5 && !x in y")
    assert isinstance(node, ast.Binary)
    assert node.op == ast.BinaryOp.BopAnd
    eq = node.left
    assert isinstance(eq, ast.Binary)
    assert eq.op == ast.BinaryOp.BopManifestEqual
    minus = eq.left
    assert isinstance(minus, ast.Binary)
    assert minus.op == ast.BinaryOp.BopMinus
    assert isinstance(minus.left, ast.Binary)  # (1 - 2) - (3 * 4): left associative
    assert isinstance(minus.right, ast.Binary)
    assert minus.right.op == ast.BinaryOp.BopMult
    rhs = node.right
    assert isinstance(rhs, ast.Binary)
    assert rhs.op == ast.BinaryOp.BopIn
    assert isinstance(rhs.left, ast.Unary)


def test_unary_binds_looser_than_indexing() -> None:
    node = snippet_to_raw_ast("f", "-a.b")
    assert isinstance(node, ast.Unary)
    assert isinstance(node.expr, ast.Index)


def test_text_block_value_and_indent() -> None:
    node = snippet_to_raw_ast("f", "|||\n  one\n    two\n\n  three\n|||")
    assert isinstance(node, ast.LiteralString)
    assert node.value == "one\n  two\n\nthree\n"
    assert node.block_indent == "  "
    chomped = snippet_to_raw_ast("f", "|||-\n  one\n|||")
    assert isinstance(chomped, ast.LiteralString)
    assert chomped.value == "one"


def test_contexts_name_functions_objects_and_thunks() -> None:
    node = snippet_to_raw_ast("f", "local g(x) = { a: x }; g(1)")
    assert isinstance(node, ast.Local)
    fun = node.binds[0].fun
    assert fun is not None
    assert fun.ctx == "thunk <g> from <$>"
    assert fun.body.ctx == "function <g>"
    call = node.body
    assert isinstance(call, ast.Apply)
    assert call.arguments.positional[0].expr.ctx == "thunk from <$>"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("'\\q'", "f:1:1-5 Unknown escape sequence in string literal: \\q"),
        ("'\\u12'", "f:1:1-7 Truncated unicode escape sequence in string literal."),
        (
            "'\\uD800'",
            "f:1:1-9 Truncated unicode surrogate pair escape sequence in string literal.",
        ),
        ("{ a: 1 } 2", 'f:1:10-11 Did not expect: (NUMBER, "2")'),
        ("local x = 1; x +", "f:1:17 Unexpected end of file"),
        ("import 'a' + 'b'", "f:1:8-17 Computed imports are not allowed"),
        ("import |||\n  a\n|||", "f:(1:8)-(3:4) Block string literals not allowed in imports"),
    ],
)
def test_own_parse_errors(source: str, expected: str) -> None:
    with pytest.raises(StaticError) as caught:
        snippet_to_raw_ast("f", source)
    assert str(caught.value) == expected


@pytest.mark.parametrize("opening", ["[", "(", "{a:", "-", "f(", "local x = 1; ["])
def test_deep_nesting_is_refused_with_a_clear_error(opening: str) -> None:
    source = opening * (MAX_NESTING + 5) + "1"
    with pytest.raises(StaticError) as caught:
        snippet_to_raw_ast("f", source)
    assert f"nested too deeply (more than {MAX_NESTING} levels)" in str(caught.value)


def test_nesting_just_under_the_limit_parses() -> None:
    depth = MAX_NESTING - 10
    node = snippet_to_raw_ast("f", "[" * depth + "]" * depth)
    assert isinstance(node, ast.Array)


def test_long_operator_chains_parse_up_to_the_limit_and_are_refused_beyond() -> None:
    source = " + ".join(["1"] * (MAX_NESTING - 10))
    node = snippet_to_raw_ast("f", source)
    assert isinstance(node, ast.Binary)
    assert where(node) == f"1:1-{len(source) + 1}"
    with pytest.raises(StaticError, match="nested too deeply"):
        snippet_to_raw_ast("f", " + ".join(["1"] * (MAX_NESTING + 10)))
    with pytest.raises(StaticError, match="nested too deeply"):
        snippet_to_raw_ast("f", "x" + ".y" * (MAX_NESTING + 10))
