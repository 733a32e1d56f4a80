"""Every tool the agent may call, assembled in one place for the loop and `tanka-bot chat`."""

from __future__ import annotations

from typing import Any

from tools.registry import Tool, ToolRegistry


def all_tools() -> list[Tool[Any]]:
    # Each tool family module exposes a TOOLS list; they are added here as they land.
    return []


def default_registry() -> ToolRegistry:
    return ToolRegistry(all_tools())
