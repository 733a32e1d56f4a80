"""Evaluation contexts (`function <f>`, `object <o>`, `thunk <x> from <...>`), as go-jsonnet's
parser labels nodes; the type checker and error traces name places with them."""

from __future__ import annotations

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import (
    direct_children,
    in_object_fields_children,
    thunk_children,
)

TOP_LEVEL_CONTEXT = "$"
_ANONYMOUS = "anonymous"


def add_context(node: ast.Node | None, context: str = TOP_LEVEL_CONTEXT, bind: str = "") -> None:
    if node is None:
        return
    bind = bind or _ANONYMOUS
    node.ctx = context
    match node:
        case ast.Function():
            inner = f"function <{bind}>"
            add_context(node.body, inner)
            for param in node.parameters:
                add_context(param.default_arg, inner)
        case ast.Object() | ast.ObjectComp():
            for child in direct_children(node):
                add_context(child, context)
            inner = f"object <{bind}>"
            for child in in_object_fields_children(node.fields):
                add_context(child, inner)
        case ast.Local():
            for b in node.binds:
                thunk = f"thunk <{b.variable}> from <{context}>"
                add_context(b.fun if b.fun is not None else b.body, thunk, b.variable)
            add_context(node.body, context, bind)
        case _:
            for child in direct_children(node):
                add_context(child, context)
            thunk = f"thunk from <{context}>"
            for child in thunk_children(node):
                add_context(child, thunk)
