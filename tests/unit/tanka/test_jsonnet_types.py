"""The type checker's findings, each with jsonnet-lint's message and the node it points at.

Expected messages follow go-jsonnet's linter (testdata of commit
923f51b8e3ba3fd49dd8b9e859e1c0304f7cdbd4 where a case comes from there, as noted).
"""

from __future__ import annotations

from collections.abc import Mapping

from tests.unit.tanka.jsonnet_trees import (
    array,
    call,
    cond,
    error,
    fn,
    import_,
    index,
    local,
    minus,
    null,
    num,
    obj,
    plus,
    resolve,
    std,
    text,
    true,
    unary,
    var,
)
from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.types import check
from tools.tanka.source.jsonnet.types.desc import FieldMap, ObjectDesc
from tools.tanka.source.jsonnet.types.placeholder import ANY_TYPE, normalize_placeholders

Finding = tuple[str, ast.LocationRange]


class Collector:
    def __init__(self) -> None:
        self.found: list[Finding] = []

    def static_err(self, msg: str, loc: ast.LocationRange) -> None:
        self.found.append((msg, loc))


def findings(root: ast.Node, others: Mapping[str, ast.Node] | None = None) -> list[Finding]:
    """Check `root` (file main.jsonnet), with `others` as further files it may import."""
    roots = {"main.jsonnet": root, **(others or {})}
    ec = Collector()
    check(
        root,
        roots,
        {path: resolve(node) for path, node in roots.items()},
        lambda _current, imported: roots.get(imported),
        ec,
    )
    return ec.found


def at(node: ast.Node, msg: str) -> Finding:
    return (msg, node.loc_range)


def test_calling_a_number() -> None:
    c = call(local(var("x"), x=num(1)))
    assert findings(c) == [
        at(c, "Called value must be a function, but it is assumed to be a number")
    ]


def test_calling_what_may_be_a_string_or_null() -> None:
    c = call(cond(true(), text("a"), null()))
    assert findings(c) == [
        at(c, "Called value must be a function, but it is assumed to be a string or a null")
    ]


def test_parameterless_function_is_judged_by_arity() -> None:
    # testdata/argcheck_additional: `(function() 1)(2)`.
    c = call(fn([], num(1)), num(2))
    assert findings(c) == [at(c, "Too many arguments: got 1, but expected at most 0")]


def test_mixed_signatures_are_judged_by_arity() -> None:
    # Two signatures merge into arity bounds. jsonnet-lint's lower bound counts the parameters
    # with defaults (2 and 3 here), so the smaller one, 2, is required.
    two = fn([("a", num(1)), ("b", num(1))], num(0))
    three = fn([("c", num(1)), ("d", num(1)), ("e", num(1))], num(0))
    c0 = call(var("f"))
    c4 = call(var("f"), num(1), num(2), num(3), num(4))
    root = local(array(c0, c4), f=cond(true(), two, three))
    assert findings(root) == [
        at(c0, "Too few arguments: got 0, but expected at least 2"),
        at(c4, "Too many arguments: got 4, but expected at most 3"),
    ]


def test_extra_positional_arguments_point_at_each_extra_argument() -> None:
    extra1, extra2 = num(2), num(3)
    root = call(fn(["x"], var("x")), num(1), extra1, extra2)
    assert findings(root) == [
        at(extra1, "Too many arguments, there can be at most 1, but 3 provided"),
        at(extra2, "Too many arguments, there can be at most 1, but 3 provided"),
    ]


def test_named_argument_already_given_by_position() -> None:
    again = num(2)
    root = call(fn(["a", "b"], var("a")), num(1), a=again, b=num(3))
    assert findings(root) == [at(again, "Argument a already provided")]


def test_named_argument_the_function_lacks() -> None:
    bad = num(2)
    root = call(fn(["a"], var("a")), num(1), z=bad)
    assert findings(root) == [at(bad, "function has no parameter z")]


def test_missing_argument_reports_the_first_only() -> None:
    c = call(fn(["a", "b", "c", ("d", num(0))], var("a")), num(1))
    assert findings(c) == [at(c, "Missing argument: b")]


def test_optional_parameters_may_be_left_out() -> None:
    root = call(fn(["a", ("b", num(0))], var("a")), b=num(1), a=num(2))
    assert findings(root) == []


def test_indexing_a_number() -> None:
    i = index(num(1), "a")
    assert findings(i) == [at(i, "Indexed value is neither an array nor an object nor a string")]


def test_array_string_and_either_need_a_number_index() -> None:
    on_array = index(array(num(1)), "a")
    on_string = index(text("s"), "a")
    on_either = index(cond(true(), array(), text("s")), "a")
    fine = index(cond(true(), array(), text("s")), 0)
    assert findings(array(on_array, on_string, on_either, fine)) == [
        at(on_array, "Indexed value is assumed to be an array, but index is not a number"),
        at(on_string, "Indexed value is assumed to be a string, but index is not a number"),
        at(
            on_either,
            "Indexed value is assumed to be an array or a string, but index is not a number",
        ),
    ]


def test_object_needs_a_string_index() -> None:
    i = index(obj(a=num(1)), 0)
    assert findings(i) == [
        at(i, "Indexed value is assumed to be an object, but index is not a string")
    ]


def test_missing_field_is_quoted_as_go_does() -> None:
    # testdata/nonexistent_field style, with a name that needs escapes.
    i = index(obj(a=num(1)), 'say "hi"\n')
    assert findings(i) == [at(i, 'Indexed object has no field "say \\"hi\\"\\n"')]


def test_fields_known_only_when_every_name_is_literal() -> None:
    computed = obj((var("k"), num(1)), a=num(1))
    assert findings(local(index(computed, "b"), k=text("b"))) == []


def test_index_fitting_neither_arrays_nor_objects() -> None:
    i = index(cond(true(), array(), obj()), null())
    assert findings(i) == [
        at(
            i,
            "Index is neither a number (for indexing arrays and string)"
            " nor a string (for indexing objects)",
        )
    ]


def test_unary_operands() -> None:
    neg = unary(ast.UnaryOp.UopMinus, text("s"))
    inv = unary(ast.UnaryOp.UopBitwiseNot, null())
    not_ = unary(ast.UnaryOp.UopNot, num(1))
    void = unary(ast.UnaryOp.UopPlus, error(text("boom")))
    ok = unary(ast.UnaryOp.UopNot, unary(ast.UnaryOp.UopNot, true()))
    assert findings(array(neg, inv, not_, void, ok)) == [
        at(neg, "Operand is not a number, it is assumed to be a string"),
        at(inv, "Operand is not a number, it is assumed to be a null"),
        at(not_, "Operand is not a boolean, it is assumed to be a number"),
        at(void, "Operand is not a number, it is assumed to be void"),
    ]


def test_parameters_are_any() -> None:
    root = fn(
        ["p"],
        array(call(var("p"), num(1)), index(var("p"), "x"), unary(ast.UnaryOp.UopMinus, var("p"))),
    )
    assert findings(root) == []


def test_describe_any() -> None:
    # An element of an array of unknown values is anything: it can be called, so no finding;
    # negating a call result that is a string or anything is fine too.
    i = index(call(std("parseJson"), text("{}")), "a")
    assert findings(i) == []


def test_findings_come_children_first() -> None:
    inner = index(num(1), "a")
    outer = call(inner)
    assert [m for m, _ in findings(outer)] == [
        "Indexed value is neither an array nor an object nor a string",
        "Called value must be a function, but it is assumed to be void",
    ]


def test_plus_of_objects_keeps_both_sides_fields() -> None:
    both = plus(obj(a=num(1)), obj(b=num(2)))
    good = array(index(both, "a"), index(both, "b"))
    bad = index(plus(obj(a=num(1)), obj(b=num(2))), "c")
    assert findings(array(good, bad)) == [at(bad, 'Indexed object has no field "c"')]


def test_plus_super_field_is_any() -> None:
    root = local(call(index(var("o"), "a")), o=obj(plus=("a",), a=obj()))
    assert findings(root) == []


def test_tracked_array_elements() -> None:
    arr = array(num(1), fn(["x"], var("x")))
    first = call(index(arr, 0))
    second = call(index(array(num(1), fn(["x"], var("x"))), 1), num(1), num(2))
    assert [m for m, _ in findings(array(first, second))] == [
        "Called value must be a function, but it is assumed to be a number",
        "Too many arguments, there can be at most 1, but 2 provided",
    ]


def test_other_binary_operators_are_any() -> None:
    assert findings(call(minus(num(1), num(2)))) == []


# --- the standard library ----------------------------------------------------------------------


def test_std_length_arity() -> None:
    two = num(2)
    none = call(std("length"))
    assert findings(array(call(std("length"), num(1), two), none)) == [
        at(two, "Too many arguments, there can be at most 1, but 2 provided"),
        at(none, "Missing argument: x"),
    ]


def test_std_has_only_its_fields() -> None:
    i = std("nope")
    assert findings(i) == [at(i, 'Indexed object has no field "nope"')]


def test_std_optional_parameters() -> None:
    ok = call(std("get"), obj(), text("a"), inc_hidden=true())
    missing = call(std("get"), obj())
    assert findings(array(ok, missing)) == [at(missing, "Missing argument: f")]


def test_std_result_types() -> None:
    c = call(call(std("length"), array()))
    neg = unary(ast.UnaryOp.UopMinus, call(std("toString"), num(1)))
    assert findings(array(c, neg)) == [
        at(c, "Called value must be a function, but it is assumed to be a number"),
        at(neg, "Operand is not a number, it is assumed to be a string"),
    ]


# --- imports -----------------------------------------------------------------------------------


def test_calling_an_imported_number() -> None:
    # testdata/call_imported_number: the imported file is a number.
    c = call(import_("lib.libsonnet"))
    assert findings(c, {"lib.libsonnet": num(42)}) == [
        at(c, "Called value must be a function, but it is assumed to be a number")
    ]


def test_imported_function_signature() -> None:
    lib = fn(["a"], var("a"))
    extra = num(2)
    root = call(import_("lib.libsonnet"), num(1), extra)
    assert findings(root, {"lib.libsonnet": lib}) == [
        at(extra, "Too many arguments, there can be at most 1, but 2 provided")
    ]


def test_only_the_main_file_is_checked() -> None:
    lib = obj(y=index(num(1), "x"))  # wrong, but in another file
    root = index(import_("lib.libsonnet"), "y")
    assert findings(root, {"lib.libsonnet": lib}) == []


def test_unresolvable_import_is_any() -> None:
    root = call(import_("missing.libsonnet"), num(1))
    assert findings(root) == []


def test_files_importing_each_other() -> None:
    lib = obj(main=import_("main.jsonnet", file="lib.libsonnet"))
    i = index(index(import_("lib.libsonnet"), "main"), "nope")
    root = obj(lib=i)
    assert findings(root, {"lib.libsonnet": lib}) == [at(i, 'Indexed object has no field "nope"')]


# --- recursion ---------------------------------------------------------------------------------


def test_recursive_function_terminates() -> None:
    f = fn(["n"], cond(true(), num(0), call(var("f"), minus(var("n"), num(1)))))
    root = local(call(var("f"), num(3)), f=f)
    assert findings(root) == []


def test_mutually_recursive_objects() -> None:
    i = index(index(index(index(var("a"), "b"), "a"), "b"), "c")
    root = local(i, a=obj(b=var("b")), b=obj(a=var("a")))
    assert findings(root) == [at(i, 'Indexed object has no field "c"')]


def test_self_referential_plus_terminates() -> None:
    root = local(index(var("x"), "z"), x=plus(var("x"), obj(y=num(1))))
    assert [m for m, _ in findings(root)] == ['Indexed object has no field "z"']


def test_long_chain_does_not_exhaust_the_stack() -> None:
    # A shallow tree whose types form a long chain: x1 = x0 + {...}, x2 = x1 + {...}, ...
    binds: dict[str, ast.Node] = {"x0": obj(a=num(1))}
    for n in range(1, 3000):
        binds[f"x{n}"] = plus(var(f"x{n - 1}"), obj(a=num(1)))
    i = index(var("x2999"), "b")
    assert findings(local(i, **binds)) == [at(i, 'Indexed object has no field "b"')]


# --- behaviour kept from jsonnet-lint on purpose ----------------------------------------------


def test_widening_an_object_widens_the_one_it_was_copied_from() -> None:
    # jsonnet-lint copies an object's description shallowly when merging `if ... then a else b`;
    # the copy shares a's field map, so b's fields become a's too and `a.y` passes. b keeps its
    # own fields, so `b.x` is still reported.
    a_y = index(var("a"), "y")
    b_x = index(var("b"), "x")
    root = local(
        array(a_y, b_x), a=obj(x=num(1)), b=obj(y=num(2)), c=cond(true(), var("a"), var("b"))
    )
    assert findings(root) == [at(b_x, 'Indexed object has no field "x"')]
    alone = index(var("a"), "y")
    assert findings(local(alone, a=obj(x=num(1)))) == [at(alone, 'Indexed object has no field "y"')]


def test_normalizing_keeps_a_single_leading_any() -> None:
    assert normalize_placeholders([7, ANY_TYPE, 7, 3]) == [ANY_TYPE, 3, 7]
    assert normalize_placeholders([7, ANY_TYPE, ANY_TYPE]) == [ANY_TYPE]
    assert normalize_placeholders([]) == []
    assert normalize_placeholders([0, ANY_TYPE, 4]) == [ANY_TYPE]  # something sorts before it
    assert normalize_placeholders([9, 4, 9]) == [4, 9]


def test_a_shared_field_map_is_normalized_again_after_widening_through_a_copy() -> None:
    origin = ObjectDesc(field_contains=FieldMap({"a": [5, 3, 5]}), all_fields_known=True)
    origin.normalize()
    assert origin.field_contains == {"a": [3, 5]}
    copy = origin.shallow_copy()  # shares the map, as jsonnet-lint's copies do
    copy.widen(ObjectDesc(field_contains=FieldMap({"a": [4, 3]}), all_fields_known=True))
    assert origin.field_contains == {"a": [3, 5, 4, 3]}
    origin.normalize()  # a normalized map that changed since is normalized again
    assert copy.field_contains == {"a": [3, 4, 5]}
