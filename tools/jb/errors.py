"""The one error type of the jb tools: a message that says what failed and how to fix it."""

from __future__ import annotations

from tools.errors import ToolError


class JbError(ToolError):
    """An expected jsonnet-bundler failure (bad file, unknown version, unreachable repository).

    It subclasses ToolError so the registry reports it to the model as is.
    """
