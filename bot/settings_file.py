"""A settings file read as YAML: TANKA_BOT_CONFIG (bot.config) and TANKA_BOT_MCP_CONFIG
(bot.mcp.config) alike. Each caller validates what the file holds and words its own error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def read_yaml(path: str | Path) -> tuple[Any, str]:
    """The file's YAML document (None when it is empty) and "", or None and why it cannot be
    had (unreadable, or not YAML), naming the path."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        return None, f"cannot read {path}: {exc.strerror or exc}"
    try:
        return yaml.safe_load(text), ""
    except yaml.YAMLError as exc:
        return None, f"{path} is not valid YAML: {exc}"
