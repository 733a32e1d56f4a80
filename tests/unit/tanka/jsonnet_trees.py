"""Desugared Jsonnet trees built by hand, with their variables resolved, for checker tests.

The builders give each node its own line (so a finding's location names the node it is about)
and `resolve` runs the linter's variable pass on them: which definition each `Var` means.
"""

from __future__ import annotations

import itertools

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.common import Variable, VariableKind
from tools.tanka.source.jsonnet.variables import find_variables

_lines = itertools.count(1)


def _at(file: str = "main.jsonnet") -> ast.LocationRange:
    line = next(_lines)
    return ast.LocationRange(file, None, ast.Location(line, 1), ast.Location(line, 2))


def num(text: str | float) -> ast.LiteralNumber:
    return ast.LiteralNumber(original_string=str(text), loc_range=_at())


def text(value: str) -> ast.LiteralString:
    return ast.LiteralString(value=value, kind=ast.LiteralStringKind.StringDouble, loc_range=_at())


def true() -> ast.LiteralBoolean:
    return ast.LiteralBoolean(value=True, loc_range=_at())


def null() -> ast.LiteralNull:
    return ast.LiteralNull(loc_range=_at())


def var(name: str) -> ast.Var:
    return ast.Var(id=name, loc_range=_at())


def local(body: ast.Node, **binds: ast.Node) -> ast.Local:
    return ast.Local(
        binds=[ast.LocalBind(variable=n, body=b) for n, b in binds.items()],
        body=body,
        loc_range=_at(),
    )


def array(*elements: ast.Node) -> ast.Array:
    return ast.Array(elements=[ast.CommaSeparatedExpr(expr=e) for e in elements], loc_range=_at())


def obj(
    *computed: tuple[ast.Node, ast.Node], plus: tuple[str, ...] = (), **fields: ast.Node
) -> ast.DesugaredObject:
    out = [
        ast.DesugaredObjectField(
            name=text(name),
            body=body,
            hide=ast.ObjectFieldHide.ObjectFieldInherit,
            plus_super=name in plus,
        )
        for name, body in fields.items()
    ]
    out += [
        ast.DesugaredObjectField(name=n, body=b, hide=ast.ObjectFieldHide.ObjectFieldInherit)
        for n, b in computed
    ]
    return ast.DesugaredObject(fields=out, loc_range=_at())


def index(target: ast.Node, key: ast.Node | str | int) -> ast.Index:
    node = text(key) if isinstance(key, str) else num(key) if isinstance(key, int) else key
    return ast.Index(target=target, index=node, loc_range=_at())


def call(target: ast.Node, *positional: ast.Node, **named: ast.Node) -> ast.Apply:
    arguments = ast.Arguments(
        positional=[ast.CommaSeparatedExpr(expr=a) for a in positional],
        named=[ast.NamedArgument(name=n, arg=a) for n, a in named.items()],
    )
    return ast.Apply(target=target, arguments=arguments, loc_range=_at())


def fn(params: list[str | tuple[str, ast.Node]], body: ast.Node) -> ast.Function:
    ps = [
        ast.Parameter(name=p) if isinstance(p, str) else ast.Parameter(name=p[0], default_arg=p[1])
        for p in params
    ]
    return ast.Function(parameters=ps, body=body, loc_range=_at())


def plus(left: ast.Node, right: ast.Node) -> ast.Binary:
    return ast.Binary(left=left, op=ast.BinaryOp.BopPlus, right=right, loc_range=_at())


def minus(left: ast.Node, right: ast.Node) -> ast.Binary:
    return ast.Binary(left=left, op=ast.BinaryOp.BopMinus, right=right, loc_range=_at())


def unary(op: ast.UnaryOp, expr: ast.Node) -> ast.Unary:
    return ast.Unary(op=op, expr=expr, loc_range=_at())


def cond(c: ast.Node, t: ast.Node, f: ast.Node) -> ast.Conditional:
    return ast.Conditional(cond=c, branch_true=t, branch_false=f, loc_range=_at())


def error(message: ast.Node) -> ast.Error:
    return ast.Error(expr=message, loc_range=_at())


def import_(path: str, file: str = "main.jsonnet") -> ast.Import:
    return ast.Import(file=text(path), loc_range=_at(file))


def std(field: str) -> ast.Index:
    return index(var("std"), field)


def resolve(root: ast.Node) -> dict[ast.Node, Variable]:
    """Each `Var` under `root` and the variable it refers to, as the linter resolves them."""
    std = Variable(name="std", variable_kind=VariableKind.VarStdlib)
    return find_variables(root, {"std": std, "$std": std}).var_at
