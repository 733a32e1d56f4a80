"""MCP servers' tools as agent tools: named `mcp__<server>__<tool>`, with the server's own schema.

Which tools are offered: with a `tools` allowlist, exactly those (by the server's names); without
one, only tools the server annotates `readOnlyHint: true`. Their results go through
`Tool.invoke` like every other tool's: Secret values masked, long outputs cut head and tail.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from mcp.types import (
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from mcp.types import Tool as McpTool
from pydantic import BaseModel, ConfigDict

from bot.mcp.config import McpServer
from bot.mcp.hub import McpFault, McpHub
from bot.mcp.naming import tool_name
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import Tool

log = logging.getLogger(__name__)

DESCRIPTION_LIMIT = 1024


class McpArguments(BaseModel):
    """Whatever the server's schema describes; the server validates it."""

    model_config = ConfigDict(extra="allow")


def offered(server: McpServer, tools: Iterable[McpTool]) -> list[McpTool]:
    """The server's tools the agent may use (allowlist, else readOnlyHint)."""
    listed = list(tools)
    if server.tools is not None:
        names = {t.name for t in listed}
        for missing in sorted(set(server.tools) - names):
            log.warning("MCP server %s lists no tool %r (named in its tools)", server.name, missing)
        return [t for t in listed if t.name in server.tools]
    return [t for t in listed if t.annotations is not None and t.annotations.read_only_hint is True]


def schema(tool: McpTool) -> dict[str, Any]:
    out = dict(tool.input_schema)
    out.pop("title", None)
    out["type"] = "object"
    out.setdefault("properties", {})
    return out


def result_text(result: CallToolResult) -> str:
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, EmbeddedResource) and isinstance(
            block.resource, TextResourceContents
        ):
            parts.append(block.resource.text)
        elif isinstance(block, ImageContent):
            parts.append(f"[image {block.mime_type}, not shown]")
        elif isinstance(block, ResourceLink):
            parts.append(f"[resource {block.uri}]")
        else:
            parts.append(f"[{getattr(block, 'type', 'content')} not shown]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, indent=1, sort_keys=True))
    return "\n".join(parts)


def make_tool(hub: McpHub, server: McpServer, tool: McpTool) -> Tool[McpArguments]:
    def run(ctx: ToolContext, params: McpArguments) -> str:
        try:
            result = hub.call(
                server.name, tool.name, params.model_extra or {}, cancelled=ctx.cancelled
            )
        except McpFault as exc:
            raise ToolError(str(exc)) from None
        text = result_text(result)
        if result.is_error:
            raise ToolError(f"MCP server {server.name}: {tool.name} reported an error: {text}")
        return text or "(no output)"

    read_only = tool.annotations is not None and tool.annotations.read_only_hint is True
    description = (tool.description or tool.title or tool.name).strip()
    return Tool(
        tool_name(server.name, tool.name),
        f"[MCP server {server.name}] {description}"[:DESCRIPTION_LIMIT],
        McpArguments,
        run,
        page_hint="ask the MCP tool for less (a narrower query or a limit)",
        schema=schema(tool),
        read_only=read_only,
    )


class McpTools:
    """A ToolRegistry source: the offered tools of every server listed so far."""

    def __init__(self, hub: McpHub) -> None:
        self.hub = hub
        self._cache: dict[str, tuple[tuple[McpTool, ...], list[Tool[Any]]]] = {}

    def __call__(self) -> list[Tool[Any]]:
        found: list[Tool[Any]] = []
        for listing in self.hub.listings():
            cached = self._cache.get(listing.server.name)
            if cached is None or cached[0] is not listing.tools:
                built = [
                    make_tool(self.hub, listing.server, t)
                    for t in offered(listing.server, listing.tools)
                ]
                cached = (listing.tools, built)
                self._cache[listing.server.name] = cached
            found.extend(cached[1])
        return found
