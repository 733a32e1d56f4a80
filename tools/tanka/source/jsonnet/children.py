"""A node's children, split the way go-jsonnet's parser package splits them.

- direct children: evaluated in the node's own scope and context;
- thunk children: evaluated lazily in the same scope (call arguments, array elements);
- special children: evaluated in a scope the node opens (function bodies, local binds, fields).
`children` is all three, in that order; the linter walks the tree with it.
"""

from __future__ import annotations

from tools.tanka.source.jsonnet import ast


def _spec_exprs(spec: ast.ForSpec | None) -> list[ast.Node]:
    result: list[ast.Node] = []
    while spec is not None:
        result.append(spec.expr)
        result.extend(cond.expr for cond in spec.conditions)
        spec = spec.outer
    return result


def _object_fields_direct(fields: list[ast.ObjectField]) -> list[ast.Node]:
    return [f.expr1 for f in fields if f.expr1 is not None]


def in_object_fields_children(fields: list[ast.ObjectField]) -> list[ast.Node]:
    """What a (non-desugared) object's fields evaluate inside the object's scope."""
    result: list[ast.Node] = []
    for f in fields:
        if f.method is not None:
            result.append(f.method)
            continue
        if f.expr2 is not None:
            result.append(f.expr2)
        if f.expr3 is not None:
            result.append(f.expr3)
    return result


def direct_children(node: ast.Node) -> list[ast.Node]:  # noqa: PLR0911, PLR0912
    match node:
        case ast.Apply():
            return [node.target]
        case ast.ApplyBrace():
            return [node.left, node.right]
        case ast.Assert():
            if node.message is not None:
                return [node.cond, node.message, node.rest]
            return [node.cond, node.rest]
        case ast.Binary():
            return [node.left, node.right]
        case ast.Conditional():
            if node.branch_false is not None:
                return [node.cond, node.branch_true, node.branch_false]
            return [node.cond, node.branch_true]
        case ast.Error():
            return [node.expr]
        case ast.Index():
            if node.id is not None or node.index is None:
                return []  # a dot reference not desugared yet
            return [node.target, node.index]
        case ast.Slice():
            # go-jsonnet lists target, begin and end here (not step); kept as is.
            return [n for n in (node.target, node.begin_index, node.end_index) if n is not None]
        case ast.Object():
            return _object_fields_direct(node.fields)
        case ast.DesugaredObject():
            return [f.name for f in node.fields]
        case ast.ArrayComp():
            return _spec_exprs(node.spec)
        case ast.ObjectComp():
            return _object_fields_direct(node.fields) + _spec_exprs(node.spec)
        case ast.Parens():
            return [node.inner]
        case ast.SuperIndex():
            if node.id is not None or node.index is None:
                return []
            return [node.index]
        case ast.InSuper():
            return [node.index]
        case ast.Unary():
            return [node.expr]
    _check_known(node)
    return []


def thunk_children(node: ast.Node) -> list[ast.Node]:
    match node:
        case ast.Apply():
            return [a.expr for a in node.arguments.positional] + [
                a.arg for a in node.arguments.named
            ]
        case ast.Array():
            return [e.expr for e in node.elements]
        case ast.ArrayComp():
            return [node.body]
    _check_known(node)
    return []


def special_children(node: ast.Node) -> list[ast.Node]:
    match node:
        case ast.Function():
            defaults = [p.default_arg for p in node.parameters if p.default_arg is not None]
            return [node.body, *defaults]
        case ast.Local():
            return [node.body] + [b.body for b in node.binds]
        case ast.DesugaredObject():
            return [f.body for f in node.fields] + [b.body for b in node.locals]
        case ast.Object() | ast.ObjectComp():
            return in_object_fields_children(node.fields)
        case ast.ArrayComp():
            return [node.body]
    _check_known(node)
    return []


def children(node: ast.Node) -> list[ast.Node]:
    if type(node) in _LEAVES:  # about half of all nodes: skip the three matches
        return []
    return direct_children(node) + thunk_children(node) + special_children(node)


# The node types none of the three lists above has children for.
_LEAVES = frozenset(
    {
        ast.Dollar,
        ast.Import,
        ast.ImportStr,
        ast.ImportBin,
        ast.LiteralBoolean,
        ast.LiteralNull,
        ast.LiteralNumber,
        ast.LiteralString,
        ast.Self,
        ast.Var,
    }
)


_KNOWN = (
    ast.Apply,
    ast.ApplyBrace,
    ast.Array,
    ast.ArrayComp,
    ast.Assert,
    ast.Binary,
    ast.Conditional,
    ast.Dollar,
    ast.Error,
    ast.Function,
    ast.Import,
    ast.ImportStr,
    ast.ImportBin,
    ast.Index,
    ast.Slice,
    ast.Local,
    ast.LiteralBoolean,
    ast.LiteralNull,
    ast.LiteralNumber,
    ast.LiteralString,
    ast.Object,
    ast.DesugaredObject,
    ast.ObjectComp,
    ast.Parens,
    ast.Self,
    ast.SuperIndex,
    ast.InSuper,
    ast.Unary,
    ast.Var,
)


def _check_known(node: ast.Node) -> None:
    if not isinstance(node, _KNOWN):
        raise TypeError(f"children: unknown node type {type(node).__name__}")
