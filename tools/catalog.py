"""Every tool the agent may call, assembled in one place for the loop and `tanka-bot chat`."""

from __future__ import annotations

from typing import Any

from tools import files, git, github
from tools.jb import tools as jb_tools
from tools.registry import Tool, ToolRegistry
from tools.tanka import tanka_render_tools, tanka_tools


def all_tools() -> list[Tool[Any]]:
    return [
        *files.TOOLS,
        *git.TOOLS,
        *tanka_render_tools.TOOLS,
        *tanka_tools.TOOLS,
        *jb_tools.TOOLS,
        *github.TOOLS,
    ]


def default_registry() -> ToolRegistry:
    return ToolRegistry(all_tools())
