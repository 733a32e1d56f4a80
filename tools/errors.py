"""The two roots of tools/'s failures; the whole tree is drawn in bot/errors.py.

The registry reports a ToolError to the model as is (git and jb subclass it); the engines
(Tanka, the Jsonnet source tools, Go's JSON) raise EngineErrors, which the agent-tool adapters
and the `tk` commands translate.
"""

from __future__ import annotations


class ToolError(Exception):
    """An expected failure, reported to the model as is (e.g. a refused path)."""


class EngineError(Exception):
    """An engine's failure: str(exc) is the text to show (tk's own wording where tk has one).

    Nothing catches EngineError itself: each engine's callers catch its own branch (TankaError,
    StaticError, FormatError, ...). It is their common root, so the tree has one place for them.
    """
