"""Phase two: with every expression's type bound known, report the misuses it proves.

Messages and positions are jsonnet-lint's (go-jsonnet's linter), so its users see the same text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Protocol

from tools.tanka.errors import go_quote
from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import children
from tools.tanka.source.jsonnet.gc_pause import cycle_collection_paused
from tools.tanka.source.jsonnet.parser import deep_recursion
from tools.tanka.source.jsonnet.types.build_graph import VarAt, add_roots
from tools.tanka.source.jsonnet.types.desc import ParamSpec, TypeDesc, describe
from tools.tanka.source.jsonnet.types.graph import ImportFunc, TypeGraph


class ErrorSink(Protocol):
    """Where findings go (the linter's error collector)."""

    def static_err(self, msg: str, loc: ast.LocationRange) -> None: ...


def check(
    main_node: ast.Node,
    roots: Mapping[str, ast.Node],
    variables: Mapping[str, VarAt],
    import_func: ImportFunc,
    ec: ErrorSink,
) -> None:
    """Report type problems in `main_node`'s file.

    `roots` holds the root of every file reachable by imports (main's included), keyed by path;
    `variables` maps each path to its variable resolution; `import_func(importing_file,
    imported)` returns the imported file's root, which must be the node in `roots`.
    """
    with _checking():
        g = TypeGraph(import_func)
        add_roots(g, roots, variables)
        types = g.prepare_types()
        _check(main_node, types, ec)


@contextmanager
def _checking() -> Iterator[None]:
    """Deep recursion allowed, and no cycle collection meanwhile: the graph is hundreds of
    thousands of small objects that live until the check ends (see gc_pause)."""
    with deep_recursion(), cycle_collection_paused():
        yield


def _check(node: ast.Node, type_of: Mapping[ast.Node, TypeDesc], ec: ErrorSink) -> None:
    # Children first: findings come out in post-order, as jsonnet-lint lists them.
    for child in children(node):
        _check(child, type_of, ec)
    if isinstance(node, ast.Apply):
        _check_apply(node, type_of[node.target], ec)
    elif isinstance(node, ast.Index):
        if node.index is None:
            raise TypeError(
                f"the type checker needs a desugared tree (`.{node.id}` at {node.loc_range})"
            )
        _check_index(node, type_of[node.target], type_of[node.index], ec)
    elif isinstance(node, ast.Unary):
        operand = type_of[node.expr]
        if node.op == ast.UnaryOp.UopNot:
            if not operand.boolean:
                ec.static_err(
                    f"Operand is not a boolean, it is assumed to be {describe(operand)}", node.loc()
                )
        elif not operand.number:
            ec.static_err(
                f"Operand is not a number, it is assumed to be {describe(operand)}", node.loc()
            )


def _check_apply(node: ast.Apply, t: TypeDesc, ec: ErrorSink) -> None:
    f = t.function_desc
    if f is None:
        ec.static_err(
            f"Called value must be a function, but it is assumed to be {describe(t)}", node.loc()
        )
    elif f.params is not None:
        _check_args(f.params, node.arguments, node.loc(), ec)
    else:
        count = len(node.arguments.named) + len(node.arguments.positional)
        if f.min_arity > count:
            ec.static_err(
                f"Too few arguments: got {count}, but expected at least {f.min_arity}", node.loc()
            )
        if f.max_arity < count:
            ec.static_err(
                f"Too many arguments: got {count}, but expected at most {f.max_arity}", node.loc()
            )


def _check_index(node: ast.Index, target: TypeDesc, index: TypeDesc, ec: ErrorSink) -> None:
    if not target.array() and not target.object() and not target.string:
        ec.static_err("Indexed value is neither an array nor an object nor a string", node.loc())
    elif not target.object():
        if target.array() and target.string:
            assumed = "an array or a string"
        elif target.array():
            assumed = "an array"
        else:
            assumed = "a string"
        if not index.number:
            ec.static_err(
                f"Indexed value is assumed to be {assumed}, but index is not a number", node.loc()
            )
    elif not target.array() and not target.string:
        if not index.string:
            ec.static_err(
                "Indexed value is assumed to be an object, but index is not a string", node.loc()
            )
        obj = target.object_desc
        if (
            obj is not None
            and obj.all_fields_known
            and isinstance(node.index, ast.LiteralString)
            and node.index.value not in obj.field_contains
        ):
            ec.static_err(f"Indexed object has no field {go_quote(node.index.value)}", node.loc())
    elif not index.number and not index.string:
        ec.static_err(
            "Index is neither a number (for indexing arrays and string)"
            " nor a string (for indexing objects)",
            node.loc(),
        )


def _check_args(
    params: tuple[ParamSpec, ...], args: ast.Arguments, loc: ast.LocationRange, ec: ErrorSink
) -> None:
    """A call against a known signature: positions, names, repeats and missing arguments.

    Like jsonnet-lint, it stops at the first problem with named arguments or missing ones.
    """
    received: set[str] = set()
    accepted = {p.name for p in params}
    for i, arg in enumerate(args.positional):
        if i < len(params):
            received.add(params[i].name)
        else:
            ec.static_err(
                f"Too many arguments, there can be at most {len(params)},"
                f" but {len(args.positional)} provided",
                arg.expr.loc(),
            )
    for named in args.named:
        if named.name in received:
            ec.static_err(f"Argument {named.name} already provided", named.arg.loc())
            return
        if named.name not in accepted:
            ec.static_err(f"function has no parameter {named.name}", named.arg.loc())
            return
        received.add(named.name)
    for p in params:
        if p.name not in received and not p.has_default:
            ec.static_err(f"Missing argument: {p.name}", loc)
            return
