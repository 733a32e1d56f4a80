"""Neutral messages to Anthropic Messages API JSON and back (pure functions, no SDK calls).

Prompt caching: the cache key is the exact prefix in render order tools -> system -> messages.
We mark the last tool, the system block and the last block of the newest message; each agent
step then reads the previous step's prefix from the cache (3 of the 4 allowed breakpoints).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.agent.errors import AgentError, ErrorKind
from bot.agent.messages import (
    Message,
    Part,
    StopReason,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)

JSON = dict[str, Any]
_EPHEMERAL: Mapping[str, str] = {"type": "ephemeral"}

_STOP_REASONS: Mapping[str, StopReason] = {
    "end_turn": StopReason.COMPLETE,
    "stop_sequence": StopReason.COMPLETE,
    "pause_turn": StopReason.COMPLETE,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "model_context_window_exceeded": StopReason.MAX_TOKENS,
    "refusal": StopReason.REFUSAL,
}


def system_blocks(system: str) -> list[JSON]:
    """The system prompt as one cached text block (only the block form can carry a breakpoint)."""
    if not system:
        return []
    return [{"type": "text", "text": system, "cache_control": dict(_EPHEMERAL)}]


def tool_params(tools: Sequence[ToolSpec]) -> list[JSON]:
    params = [_tool_param(spec) for spec in tools]
    if params:
        params[-1]["cache_control"] = dict(_EPHEMERAL)
    return params


def _tool_param(spec: ToolSpec) -> JSON:
    schema = dict(spec.input_schema)
    if schema.get("type") != "object":
        raise AgentError(
            ErrorKind.INVALID,
            f"tool {spec.name!r} has an input schema of type {schema.get('type')!r}; "
            "Anthropic requires an object schema (build it with tools.registry.input_schema)",
        )
    return {"name": spec.name, "description": spec.description, "input_schema": schema}


def message_params(messages: Sequence[Message]) -> list[JSON]:
    """Wire messages: same-role neighbours merged, tool results first, empty text dropped."""
    wire: list[JSON] = []
    for message in messages:
        blocks = [b for b in (_block(p) for p in message.parts) if b is not None]
        if not blocks:
            continue
        if wire and wire[-1]["role"] == message.role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": message.role, "content": blocks})
    for entry in wire:
        if entry["role"] == "user":
            # The API wants a user turn's tool_result blocks before any text in it.
            entry["content"].sort(key=lambda b: b["type"] != "tool_result")
    if wire:
        wire[-1]["content"][-1]["cache_control"] = dict(_EPHEMERAL)
    return wire


def _block(part: Part) -> JSON | None:
    if isinstance(part, Text):
        # The API rejects empty text blocks ("text content blocks must be non-empty").
        return {"type": "text", "text": part.text} if part.text.strip() else None
    if isinstance(part, ToolCall):
        return {"type": "tool_use", "id": part.id, "name": part.name, "input": dict(part.arguments)}
    return _tool_result(part)


def _tool_result(result: ToolResult) -> JSON:
    block: JSON = {"type": "tool_result", "tool_use_id": result.call_id}
    if result.content:
        block["content"] = result.content
    if result.is_error:
        block["is_error"] = True
    return block


def parse_content(blocks: Sequence[Any]) -> Message:
    """The assistant message from SDK content blocks; unknown block types are skipped."""
    parts: list[Part] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text" and block.text:
            parts.append(Text(block.text))
        elif kind == "tool_use":
            arguments = block.input if isinstance(block.input, Mapping) else {}
            parts.append(ToolCall(block.id, block.name, dict(arguments)))
    return Message("assistant", tuple(parts))


def parse_stop_reason(raw: str | None, message: Message) -> StopReason:
    reason = _STOP_REASONS.get(raw or "", StopReason.COMPLETE)
    if reason is StopReason.COMPLETE and message.tool_calls:
        return StopReason.TOOL_USE
    return reason


def parse_usage(usage: Any) -> Usage:
    """Anthropic's input_tokens already excludes cache reads and writes."""
    if usage is None:
        return Usage()
    return Usage(
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        cache_read_tokens=getattr(usage, "cache_read_input_tokens", None) or 0,
        cache_write_tokens=getattr(usage, "cache_creation_input_tokens", None) or 0,
    )
