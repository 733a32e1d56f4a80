"""Source text to the tree go-jsonnet's linter works on (`jsonnet.SnippetToAST`): parsed,
desugared and analysed."""

from __future__ import annotations

import sys

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.analyzer import analyze
from tools.tanka.source.jsonnet.desugarer import desugar
from tools.tanka.source.jsonnet.parser import snippet_to_raw_ast

# The passes recurse once or twice per level of nesting; the parser refuses nesting deeper
# than MAX_NESTING, and this leaves room for that depth (it only ever raises the limit).
_RECURSION_LIMIT = 20_000


def ensure_recursion_limit() -> None:
    if sys.getrecursionlimit() < _RECURSION_LIMIT:
        sys.setrecursionlimit(_RECURSION_LIMIT)


def snippet_to_ast(file_name: str, text: str) -> ast.Node:
    """The analysed tree of `text`; raises StaticError (parse or static) as go-jsonnet would."""
    ensure_recursion_limit()
    node = desugar(snippet_to_raw_ast(file_name, text))
    analyze(node)
    return node
