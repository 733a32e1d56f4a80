"""Every tool the agent may call, assembled in one place for the loop and `tanka-bot chat`."""

from __future__ import annotations

from typing import Any

from tools import files, git, github
from tools.engine_tools import explore as explore_tools
from tools.engine_tools import jb as jb_tools
from tools.engine_tools import tanka as tanka_tools
from tools.engine_tools import tanka_check as tanka_check_tools
from tools.engine_tools import tanka_eval as tanka_eval_tools
from tools.engine_tools import tanka_render as tanka_render_tools
from tools.registry import Tool, ToolRegistry


def all_tools() -> list[Tool[Any]]:
    return [
        *files.TOOLS,
        *git.TOOLS,
        *tanka_render_tools.TOOLS,
        *tanka_eval_tools.TOOLS,
        *tanka_tools.TOOLS,
        *tanka_check_tools.TOOLS,
        *jb_tools.TOOLS,
        *github.TOOLS,
        *explore_tools.TOOLS,
    ]


def default_registry() -> ToolRegistry:
    return ToolRegistry(all_tools())
