"""Static analysis after desugaring, as go-jsonnet's: each node's free variables (sorted), and
the first of "Unknown variable", "Can't use self/super outside of an object"."""

from __future__ import annotations

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.errors import StaticError


class _State:
    __slots__ = ("err", "free")

    def __init__(self) -> None:
        self.err: StaticError | None = None
        self.free: set[str] = set()

    def visit(self, node: ast.Node, in_object: bool, scope: frozenset[str]) -> None:
        if self.err is not None:
            return
        self.err = _visit(node, in_object, scope)
        self.free.update(node.free_vars)

    def enter_local(
        self, binds: list[ast.LocalBind], scope: frozenset[str], in_object: bool
    ) -> frozenset[str]:
        inner = scope | {b.variable for b in binds}
        for b in binds:  # binds may refer to each other and to themselves
            self.visit(b.body, in_object, inner)
        return inner


def _visit(node: ast.Node, in_object: bool, scope: frozenset[str]) -> StaticError | None:  # noqa: PLR0912, PLR0915
    s = _State()
    match node:
        case ast.Apply():
            s.visit(node.target, in_object, scope)
            for p in node.arguments.positional:
                s.visit(p.expr, in_object, scope)
            for n in node.arguments.named:
                s.visit(n.arg, in_object, scope)
        case ast.Array():
            for e in node.elements:
                s.visit(e.expr, in_object, scope)
        case ast.Binary():
            s.visit(node.left, in_object, scope)
            s.visit(node.right, in_object, scope)
        case ast.Conditional():
            s.visit(node.cond, in_object, scope)
            s.visit(node.branch_true, in_object, scope)
            s.visit(ast.present(node.branch_false), in_object, scope)
        case ast.Error():
            s.visit(node.expr, in_object, scope)
        case ast.Function():
            inner = scope | {param.name for param in node.parameters}
            for param in node.parameters:
                if param.default_arg is not None:
                    s.visit(param.default_arg, in_object, inner)
            s.visit(node.body, in_object, inner)
            s.free.difference_update(param.name for param in node.parameters)
        case ast.Import() | ast.ImportStr() | ast.ImportBin():
            pass
        case ast.InSuper() | ast.SuperIndex():
            if not in_object:
                return StaticError("Can't use super outside of an object.", node.loc_range)
            s.visit(ast.present(node.index), in_object, scope)
        case ast.Index():
            s.visit(node.target, in_object, scope)
            s.visit(ast.present(node.index), in_object, scope)
        case ast.Local():
            inner = s.enter_local(node.binds, scope, in_object)
            s.visit(node.body, in_object, inner)
            s.free.difference_update(b.variable for b in node.binds)
        case ast.LiteralBoolean() | ast.LiteralNull() | ast.LiteralNumber() | ast.LiteralString():
            pass
        case ast.DesugaredObject():
            inner = s.enter_local(node.locals, scope, True)
            for f in node.fields:
                s.visit(f.body, True, inner)
            for a in node.asserts:
                s.visit(a, True, inner)
            s.free.difference_update(b.variable for b in node.locals)
            for f in node.fields:  # field names are evaluated outside the object
                s.visit(f.name, in_object, scope)
        case ast.Self():
            if not in_object:
                return StaticError("Can't use self outside of an object.", node.loc_range)
        case ast.Unary():
            s.visit(node.expr, in_object, scope)
        case ast.Var():
            if node.id not in scope:
                return StaticError(f"Unknown variable: {node.id}", node.loc_range)
            s.free.add(node.id)
        case _:
            raise TypeError(f"analyze: unexpected node {type(node).__name__}")
    node.free_vars = sorted(s.free)
    return s.err


def analyze(node: ast.Node) -> None:
    """Sets free variables on every node; raises the first StaticError found."""
    err = _visit(node, False, frozenset({"std", "$std"}))
    if err is not None:
        raise err
