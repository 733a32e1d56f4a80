"""How an MCP tool is named for the model: `mcp__<server>__<tool>`, within every provider's rules.

Anthropic, OpenAI and Gemini all accept tool names of letters, digits, `_` and `-` up to 64
characters. A name that fits is used as is. Otherwise every character outside that set becomes
`_`, the result is cut to its first 55 characters, and `_` plus the first 8 hex digits of the
SHA-256 of the original name is appended: the same server and tool always get the same name,
and two names that were cut or cleaned differently stay apart.
"""

from __future__ import annotations

import hashlib
import re

from tools.subagent_port import MCP_PREFIX

MAX_NAME = 64
_HASH = 8
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    full = f"{MCP_PREFIX}{server}__{tool}"
    safe = _UNSAFE.sub("_", full)
    if safe == full and len(full) <= MAX_NAME:
        return full
    # Replaced characters get the suffix too: "a.b" and "a/b" must not both become "a_b".
    digest = hashlib.sha256(full.encode()).hexdigest()[:_HASH]
    return f"{safe[: MAX_NAME - _HASH - 1]}_{digest}"
