"""The type checker on generated programs: it always ends, never raises, and only says what
jsonnet-lint says, about nodes of the checked file."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.tanka import jsonnet_trees as t
from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import children
from tools.tanka.source.jsonnet.types import check

_MESSAGES = re.compile(
    "|".join(
        [
            r"Called value must be a function, but it is assumed to be .+",
            r"Too (few|many) arguments: got \d+, but expected at (least|most) \d+",
            r"Too many arguments, there can be at most \d+, but \d+ provided",
            r"Argument \w+ already provided",
            r"function has no parameter \w+",
            r"Missing argument: \w+",
            r"Indexed value is neither an array nor an object nor a string",
            r"Indexed value is assumed to be (an array|a string|an array or a string|an object),"
            r" but index is not a (number|string)",
            r'Indexed object has no field ".*"',
            r"Index is neither a number \(for indexing arrays and string\)"
            r" nor a string \(for indexing objects\)",
            r"Operand is not a (number|boolean), it is assumed to be .+",
        ]
    )
)
_NAMES = ["a", "b", "c"]
_FIELDS = ["a", "b", "length", "nope"]


def _expr(data: st.DataObject, depth: int, scope: tuple[str, ...]) -> ast.Node:  # noqa: PLR0911, PLR0912
    leaf = depth >= 4
    kind = data.draw(st.integers(0, 4 if leaf else 15))
    if kind == 0:
        return t.num(data.draw(st.sampled_from(["0", "1", "2.5", "7"])))
    if kind == 1:
        return t.text(data.draw(st.sampled_from(_FIELDS)))
    if kind == 2:
        return data.draw(st.sampled_from([t.true, t.null]))()
    if kind == 3 and scope:
        return t.var(data.draw(st.sampled_from(scope)))
    if kind in (3, 4):
        return t.std(data.draw(st.sampled_from(["length", "get", "nope", "parseJson", "thisFile"])))
    sub = depth + 1
    if kind == 5:
        names = data.draw(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=2, unique=True))
        inner = (*scope, *names)
        return t.local(_expr(data, sub, inner), **{n: _expr(data, sub, inner) for n in names})
    if kind == 6:
        names = data.draw(st.lists(st.sampled_from(_NAMES), max_size=2, unique=True))
        inner = (*scope, *names)
        with_default = data.draw(st.booleans())
        params: list[str | tuple[str, ast.Node]] = [
            (n, _expr(data, sub, inner)) if with_default and i else n for i, n in enumerate(names)
        ]
        return t.fn(params, _expr(data, sub, inner))
    if kind == 7:
        args = [_expr(data, sub, scope) for _ in range(data.draw(st.integers(0, 2)))]
        named = {
            n: _expr(data, sub, scope)
            for n in data.draw(st.lists(st.sampled_from(_NAMES), max_size=1))
        }
        return t.call(_expr(data, sub, scope), *args, **named)
    if kind == 8:
        key = data.draw(st.one_of(st.sampled_from(_FIELDS), st.integers(0, 6)))
        return t.index(
            _expr(data, sub, scope), key if data.draw(st.booleans()) else _expr(data, sub, scope)
        )
    if kind == 9:
        fields = data.draw(st.lists(st.sampled_from(_FIELDS), max_size=3, unique=True))
        plus = tuple(f for f in fields if data.draw(st.booleans()))
        return t.obj(plus=plus, **{f: _expr(data, sub, scope) for f in fields})
    if kind == 10:
        return t.array(*[_expr(data, sub, scope) for _ in range(data.draw(st.integers(0, 7)))])
    if kind == 11:
        return t.plus(_expr(data, sub, scope), _expr(data, sub, scope))
    if kind == 12:
        op = data.draw(st.sampled_from(list(ast.UnaryOp)))
        return t.unary(op, _expr(data, sub, scope))
    if kind == 13:
        return t.cond(_expr(data, sub, scope), _expr(data, sub, scope), _expr(data, sub, scope))
    if kind == 14:
        return t.error(_expr(data, sub, scope))
    return t.import_(
        data.draw(st.sampled_from(["main.jsonnet", "lib.libsonnet", "missing.libsonnet"]))
    )


def _nodes(root: ast.Node) -> list[ast.Node]:
    out, todo = [], [root]
    while todo:
        node = todo.pop()
        out.append(node)
        todo += children(node)
    return out


class _Collector:
    def __init__(self) -> None:
        self.found: list[tuple[str, ast.LocationRange]] = []

    def static_err(self, msg: str, loc: ast.LocationRange) -> None:
        self.found.append((msg, loc))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_checker_ends_and_reports_only_known_findings(data: st.DataObject) -> None:
    main = _expr(data, 0, ())
    lib = _expr(data, 1, ())
    roots = {"main.jsonnet": main, "lib.libsonnet": lib}
    ec = _Collector()
    check(main, roots, {p: t.resolve(n) for p, n in roots.items()}, lambda _c, i: roots.get(i), ec)
    where = {n.loc_range for n in _nodes(main)}
    for msg, loc in ec.found:
        assert _MESSAGES.fullmatch(msg), msg
        assert loc in where
