"""The root of the tools' expected failures: a message the model (or a person) can act on.

The registry reports a ToolError to the model as is; engines (git, jb, Tanka) subclass it or
raise their own errors, which the agent-tool adapters translate.
"""

from __future__ import annotations


class ToolError(Exception):
    """An expected failure, reported to the model as is (e.g. a refused path)."""
