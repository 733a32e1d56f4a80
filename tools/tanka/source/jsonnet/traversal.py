"""Checks made in one walk of the tree (go-jsonnet's linter/internal/traversal): a local whose
value needs itself ("Endless loop in local definition")."""

from __future__ import annotations

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import children, direct_children
from tools.tanka.source.jsonnet.common import ErrCollector


def _looping(
    node: ast.Node,
    binds: dict[str, ast.Node],
    run_of: dict[str, int],
    run: int,
    ec: ErrCollector,
) -> bool:
    # Only direct children: what is evaluated right away, not in functions, objects or thunks.
    if isinstance(node, ast.Var) and node.id in binds:
        first = run_of.get(node.id)
        if first is None:
            run_of[node.id] = run
            return _looping(binds[node.id], binds, run_of, run, ec)
        if first == run:
            ec.static_err("Endless loop in local definition", node.loc_range)
            return True
    for child in direct_children(node):  # noqa: SIM110 - a loop, not any(): no C frame per level
        if _looping(child, binds, run_of, run, ec):
            return True
    return False


def _looping_in_local(node: ast.Local, ec: ErrCollector) -> None:
    binds = {b.variable: b.body for b in node.binds}
    run_of: dict[str, int] = {}
    for i, b in enumerate(node.binds):
        if _looping(b.body, binds, run_of, i, ec):
            return


def traverse(node: ast.Node, ec: ErrCollector) -> None:
    if isinstance(node, ast.Local):
        _looping_in_local(node, ec)
    for child in children(node):
        traverse(child, ec)
