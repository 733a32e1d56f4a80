"""Desugaring and static analysis: the tree the linter sees, as go-jsonnet builds it."""

from __future__ import annotations

import pytest

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.errors import StaticError
from tools.tanka.source.jsonnet.program import snippet_to_ast


def std_call(node: ast.Node) -> tuple[str, list[ast.Node]]:
    """(builtin name, positional arguments) of a desugarer-made `$std.name(...)` call."""
    assert isinstance(node, ast.Apply)
    target = node.target
    assert isinstance(target, ast.Index)
    assert isinstance(target.target, ast.Var)
    assert target.target.id == "$std"
    assert isinstance(target.index, ast.LiteralString)
    return target.index.value, [a.expr for a in node.arguments.positional]


def test_dot_index_becomes_a_string_index_without_location() -> None:
    node = snippet_to_ast("f", "local o = {a: 1}; o.a")
    assert isinstance(node, ast.Local)
    index = node.body
    assert isinstance(index, ast.Index)
    assert index.id is None
    assert isinstance(index.index, ast.LiteralString)
    assert index.index.value == "a"
    assert not index.index.loc_range.is_set()
    assert str(index.loc_range) == "f:1:19-22"


def test_percent_and_in_become_std_calls_keeping_the_location() -> None:
    mod = snippet_to_ast("f", "7 % 2")
    name, args = std_call(mod)
    assert name == "mod"
    assert [a.loc_range.begin.column for a in args] == [1, 5]
    assert str(mod.loc_range) == "f:1:1-6"
    has = snippet_to_ast("f", "'k' in {}")
    name, args = std_call(has)
    assert name == "objectHasAll"
    assert isinstance(args[0], ast.DesugaredObject)  # reversed: object first
    assert isinstance(args[1], ast.LiteralString)


def test_slice_fills_missing_parts_with_null() -> None:
    name, args = std_call(snippet_to_ast("f", "[1, 2, 3][1:]"))
    assert name == "slice"
    assert [type(a).__name__ for a in args] == [
        "Array",
        "LiteralNumber",
        "LiteralNull",
        "LiteralNull",
    ]


def test_comprehension_becomes_flatmap_with_conditions_joined_by_and() -> None:
    node = snippet_to_ast("f", "[x for x in [1, 2] if x > 0 if x < 9]")
    name, args = std_call(node)
    assert name == "flatMap"
    fun, arr = args
    assert isinstance(fun, ast.Function)
    assert [p.name for p in fun.parameters] == ["x"]
    assert isinstance(arr, ast.Array)
    cond = fun.body
    assert isinstance(cond, ast.Conditional)
    assert isinstance(cond.cond, ast.Binary)
    assert cond.cond.op == ast.BinaryOp.BopAnd
    assert isinstance(cond.branch_false, ast.Array)


def test_object_gets_dollar_local_only_at_the_outermost_level() -> None:
    node = snippet_to_ast("f", "{ a: { b: $.c }, c: 1, local l = 2, d: l }")
    assert isinstance(node, ast.DesugaredObject)
    assert [b.variable for b in node.locals] == ["l", "$"]
    inner = node.fields[0].body
    assert isinstance(inner, ast.DesugaredObject)
    assert [b.variable for b in inner.locals] == []
    dollar = inner.fields[0].body
    assert isinstance(dollar, ast.Index)
    assert isinstance(dollar.target, ast.Var)
    assert dollar.target.id == "$"
    assert str(dollar.target.loc_range) == "f:1:11-12"


def test_methods_and_local_functions_become_functions() -> None:
    node = snippet_to_ast("f", "local g(x) = x; { m(y):: g(y) }")
    assert isinstance(node, ast.Local)
    assert node.binds[0].fun is None
    assert isinstance(node.binds[0].body, ast.Function)
    obj = node.body
    assert isinstance(obj, ast.DesugaredObject)
    assert obj.fields[0].hide == ast.ObjectFieldHide.ObjectFieldHidden
    assert isinstance(obj.fields[0].body, ast.Function)


def test_object_comprehension_moves_locals_into_its_field() -> None:
    node = snippet_to_ast("f", "{ local k = 1, [x]: k for x in ['a'] }")
    name, args = std_call(node)
    assert name == "$objectFlatMerge"
    flat_name, (fun, _) = std_call(args[0])
    assert flat_name == "flatMap"
    assert isinstance(fun, ast.Function)
    wrapped = fun.body
    assert isinstance(wrapped, ast.Array)
    obj = wrapped.elements[0].expr
    assert isinstance(obj, ast.DesugaredObject)
    assert obj.locals == []
    assert isinstance(obj.fields[0].body, ast.Local)


def test_asserts_parens_and_apply_brace() -> None:
    node = snippet_to_ast("f", "assert true; ({} { a: 1 })")
    assert isinstance(node, ast.Conditional)
    assert isinstance(node.branch_false, ast.Error)
    message = node.branch_false.expr
    assert isinstance(message, ast.LiteralString)
    assert message.value == "Assertion failed"
    plus = node.branch_true
    assert isinstance(plus, ast.Binary)  # the parentheses are gone
    assert plus.op == ast.BinaryOp.BopPlus
    assert str(plus.loc_range) == "f:1:15-26"


def test_strings_are_unescaped_and_become_double_quoted() -> None:
    node = snippet_to_ast("f", r"'a\tb\u00e9'")
    assert isinstance(node, ast.LiteralString)
    assert (node.value, node.kind) == ("a\tbé", ast.LiteralStringKind.StringDouble)
    verbatim = snippet_to_ast("f", "@'a\\t'")
    assert isinstance(verbatim, ast.LiteralString)
    assert verbatim.value == "a\\t"


def test_free_variables_are_sorted_and_exclude_bound_ones() -> None:
    node = snippet_to_ast("f", "function(b) local a = 1; std.length([a, b])")
    assert isinstance(node, ast.Function)
    assert node.free_vars == ["std"]
    assert node.body.free_vars == ["b", "std"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("$", "f:1:1-2 No top-level object found."),
        ("{ [$.a]: 1 }", "f:1:4-5 No top-level object found."),
        ("local a = b; a", "f:1:11-12 Unknown variable: b"),
        ("self.x", "f:1:1-5 Can't use self outside of an object."),
        ("super.x", "f:1:1-6 Can't use super outside of an object."),
        ("'a' in super", "f:1:1-13 Can't use super outside of an object."),
        ("{ [self.a]: 1 }", "f:1:4-8 Can't use self outside of an object."),
        ("[x for x in [y]]", "f:1:14-15 Unknown variable: y"),
    ],
)
def test_static_errors(source: str, expected: str) -> None:
    with pytest.raises(StaticError) as caught:
        snippet_to_ast("f", source)
    assert str(caught.value) == expected


@pytest.mark.parametrize("index", ['("a")', '"a" + ""', "std.thisFile", "[1, 2][0]"])
def test_a_computed_super_index_is_desugared_and_analysed(index: str) -> None:
    # go-jsonnet 923f51b8's analyzer panics on `super[("a")]`; the evaluator accepts it.
    node = snippet_to_ast("f", f"{{ a: 1 }} + {{ b: super[{index}] }}")
    assert isinstance(node, ast.Binary)
    [field] = [f for f in node.right.fields if isinstance(f, ast.DesugaredObjectField)]  # type: ignore[attr-defined]
    assert isinstance(field.body, ast.SuperIndex)
    assert not isinstance(field.body.index, ast.Parens)
    with pytest.raises(StaticError, match="Unknown variable: nope"):
        snippet_to_ast("f", "{ a: 1 } + { b: super[(nope)] }")
