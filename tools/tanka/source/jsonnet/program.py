"""Source text to the tree go-jsonnet's linter works on (`jsonnet.SnippetToAST`): parsed,
desugared and analysed."""

from __future__ import annotations

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.analyzer import analyze
from tools.tanka.source.jsonnet.desugarer import desugar
from tools.tanka.source.jsonnet.parser import deep_recursion, snippet_to_raw_ast


def snippet_to_ast(file_name: str, text: str) -> ast.Node:
    """The analysed tree of `text`; raises StaticError (parse or static) as go-jsonnet would."""
    with deep_recursion():
        node = desugar(snippet_to_raw_ast(file_name, text))
        analyze(node)
    return node
