"""Desugaring, as go-jsonnet's desugarer does it: objects become DesugaredObject, comprehensions
std.flatMap calls, `%`/`in`/slices std calls, `a.b` becomes `a["b"]`, asserts conditionals,
parentheses vanish and quoted strings are unescaped. Nodes made here have no location, as in
go-jsonnet (except where it copies one), so findings point where go-jsonnet's do.
"""

from __future__ import annotations

from collections.abc import Callable

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.errors import StaticError
from tools.tanka.source.jsonnet.strings import string_unescape

_STD_BOPS = {ast.BinaryOp.BopPercent: "mod", ast.BinaryOp.BopIn: "objectHasAll"}


def _string(value: str) -> ast.LiteralString:
    return ast.LiteralString(value=value, kind=ast.LiteralStringKind.StringDouble)


def _std_call(name: str, loc: ast.LocationRange, *args: ast.Node) -> ast.Apply:
    target = ast.Index(target=ast.Var(id="$std"), index=_string(name))
    positional = [ast.CommaSeparatedExpr(expr=a) for a in args]
    return ast.Apply(loc_range=loc, target=target, arguments=ast.Arguments(positional=positional))


def _fields(base: ast.Node, fields: list[ast.ObjectField], level: int) -> ast.DesugaredObject:
    for f in fields:
        if f.method is not None:
            f.expr2 = f.method
            f.method = None
    asserts: list[ast.Node] = []
    binds: list[ast.LocalBind] = []
    out: list[ast.DesugaredObjectField] = []
    for f in fields:
        if f.kind == ast.ObjectFieldKind.ObjectAssert:
            msg = f.expr3 if f.expr3 is not None else _string("Object assertion failed.")
            asserts.append(
                ast.Conditional(
                    loc_range=f.loc_range,
                    cond=ast.present(f.expr2),
                    branch_true=ast.LiteralBoolean(value=True),
                    branch_false=ast.Error(loc_range=f.loc_range, expr=msg),
                )
            )
        elif f.kind == ast.ObjectFieldKind.ObjectLocal:
            body = ast.present(f.expr2)
            binds.append(
                ast.LocalBind(variable=ast.present(f.id), body=body, loc_range=f.loc_range)
            )
        else:
            if f.kind == ast.ObjectFieldKind.ObjectFieldID:
                name: ast.Node = _string(ast.present(f.id))
            else:
                name = ast.present(f.expr1)
            out.append(
                ast.DesugaredObjectField(
                    name=name,
                    body=ast.present(f.expr2),
                    hide=f.hide,
                    plus_super=f.super_sugar,
                    loc_range=f.loc_range,
                )
            )
    if level == 0:  # the hidden variable behind `$`
        binds.append(ast.LocalBind(variable="$", body=ast.Self()))
    asserts = [desugar(a, level + 1) for a in asserts]
    _binds(binds, level + 1)
    for field in out:
        field.name = desugar(field.name, level)
        field.body = desugar(field.body, level + 1)
    return ast.DesugaredObject(
        loc_range=base.loc_range,
        free_vars=base.free_vars,
        ctx=base.ctx,
        asserts=asserts,
        fields=out,
        locals=binds,
    )


def _for_spec(inside: ast.Node, loc: ast.LocationRange, spec: ast.ForSpec, level: int) -> ast.Node:
    while True:
        body = inside
        if spec.conditions:
            cond = spec.conditions[0].expr
            for extra in spec.conditions[1:]:
                cond = ast.Binary(left=cond, op=ast.BinaryOp.BopAnd, right=extra.expr)
            cond = desugar(cond, level)
            body = ast.Conditional(cond=cond, branch_true=inside, branch_false=ast.Array())
        function = ast.Function(parameters=[ast.Parameter(name=spec.var_name)], body=body)
        spec.expr = desugar(spec.expr, level)
        inside = _std_call("flatMap", loc, function, spec.expr)
        if spec.outer is None:
            return inside
        spec = spec.outer


def _binds(binds: list[ast.LocalBind], level: int) -> None:
    for i, bind in enumerate(binds):
        b = bind
        if b.fun is not None:
            # go-jsonnet replaces the bind, dropping its location.
            binds[i] = b = ast.LocalBind(variable=b.variable, body=b.fun)
        b.body = desugar(b.body, level)


def _object_comp(node: ast.ObjectComp, level: int) -> ast.Node:
    obj = _fields(node, node.fields, level)
    if obj.locals:
        # The merge below does not know object locals: they go into the one field.
        field = obj.fields[0]
        field.body = ast.Local(binds=obj.locals, body=field.body)
        obj.locals = []
    wrapped = ast.Array(elements=[ast.CommaSeparatedExpr(expr=obj)])
    comp = _for_spec(wrapped, node.loc_range, node.spec, level)
    return _std_call("$objectFlatMerge", node.loc_range, comp)


def _d(level: int) -> Callable[[ast.Node], ast.Node]:
    return lambda n: desugar(n, level)


def desugar(node: ast.Node, level: int = 0) -> ast.Node:  # noqa: PLR0911, PLR0912, PLR0915
    """The desugared form of `node` (which is changed in place where go-jsonnet does)."""
    d = _d(level)
    match node:
        case ast.Apply():
            node.target = d(node.target)
            for p in node.arguments.positional:
                p.expr = d(p.expr)
            for n in node.arguments.named:
                n.arg = d(n.arg)
        case ast.ApplyBrace():
            left, right = d(node.left), d(node.right)
            return ast.Binary(
                loc_range=node.loc_range,
                free_vars=node.free_vars,
                ctx=node.ctx,
                left=left,
                op=ast.BinaryOp.BopPlus,
                right=right,
            )
        case ast.Array():
            for e in node.elements:
                e.expr = d(e.expr)
        case ast.ArrayComp():
            node.body = d(node.body)
            wrapped = ast.Array(elements=[ast.CommaSeparatedExpr(expr=node.body)])
            return _for_spec(wrapped, node.loc_range, node.spec, level)
        case ast.Assert():
            msg = node.message if node.message is not None else _string("Assertion failed")
            node.message = msg
            cond = ast.Conditional(
                cond=node.cond,
                branch_true=node.rest,
                branch_false=ast.Error(loc_range=node.loc_range, expr=msg),
            )
            return d(cond)
        case ast.Binary():
            name = _STD_BOPS.get(node.op)
            if name is not None:
                args = (
                    (node.right, node.left)
                    if node.op == ast.BinaryOp.BopIn
                    else (node.left, node.right)
                )
                return d(_std_call(name, node.loc_range, *args))
            node.left = d(node.left)
            node.right = d(node.right)
        case ast.Conditional():
            node.cond = d(node.cond)
            node.branch_true = d(node.branch_true)
            if node.branch_false is None:
                node.branch_false = ast.LiteralNull()
            node.branch_false = d(node.branch_false)
        case ast.Dollar():
            if level == 0:
                raise StaticError("No top-level object found.", node.loc_range)
            return ast.Var(loc_range=node.loc_range, free_vars=node.free_vars, ctx=node.ctx, id="$")
        case ast.Error():
            node.expr = d(node.expr)
        case ast.Function():
            for param in node.parameters:
                if param.default_arg is not None:
                    param.default_arg = d(param.default_arg)
            node.body = d(node.body)
        case ast.Import() | ast.ImportStr() | ast.ImportBin():
            d(node.file)
        case ast.Index():
            node.target = d(node.target)
            if node.id is not None:
                node.index = _string(node.id)
                node.id = None
            node.index = d(ast.present(node.index))
        case ast.Slice():
            null = ast.LiteralNull
            call = _std_call(
                "slice",
                node.loc_range,
                node.target,
                node.begin_index if node.begin_index is not None else null(),
                node.end_index if node.end_index is not None else null(),
                node.step if node.step is not None else null(),
            )
            return d(call)
        case ast.Local():
            _binds(node.binds, level)
            node.body = d(node.body)
        case ast.LiteralString():
            if node.kind.fully_escaped():
                node.value = string_unescape(node.loc_range, node.value)
            node.kind = ast.LiteralStringKind.StringDouble
            node.block_indent = ""
        case ast.Object():
            return _fields(node, node.fields, level)
        case ast.DesugaredObject():
            raise TypeError("desugar: the object is already desugared")
        case ast.ObjectComp():
            return _object_comp(node, level)
        case ast.Parens():
            return d(node.inner)
        case ast.SuperIndex():
            if node.id is not None:
                # go-jsonnet makes this string with the zero kind (single-quoted), undesugared.
                node.index = ast.LiteralString(
                    value=node.id, kind=ast.LiteralStringKind.StringSingle
                )
                node.id = None
            else:
                # go-jsonnet 923f51b8 leaves `super[e]` undesugared and its analyzer then panics
                # on `super[("a")]`; the go-jsonnet that evaluates environments here accepts it,
                # so the index is desugared like any other.
                node.index = d(ast.present(node.index))
        case ast.InSuper():
            node.index = d(node.index)
        case ast.Unary():
            node.expr = d(node.expr)
        case (
            ast.LiteralBoolean() | ast.LiteralNull() | ast.LiteralNumber() | ast.Self() | ast.Var()
        ):
            pass
        case _:
            raise TypeError(f"desugar: unknown node {type(node).__name__}")
    return node
