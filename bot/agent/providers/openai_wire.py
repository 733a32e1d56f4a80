"""Neutral messages to OpenAI Chat Completions JSON and back (pure functions, no SDK calls).

Chat Completions has no error flag on tool results, so a failed tool's output goes back with an
"ERROR: " prefix the model can read.
"""

from __future__ import annotations

import json
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

_FINISH: Mapping[str, StopReason] = {
    "stop": StopReason.COMPLETE,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.REFUSAL,
}


def messages(system: str, history: Sequence[Message]) -> list[JSON]:
    wire: list[JSON] = [{"role": "system", "content": system}] if system else []
    for message in history:
        if message.role == "assistant":
            wire.append(_assistant(message.parts))
        else:
            wire.extend(_user(message.parts))
    return wire


def _assistant(parts: Sequence[Part]) -> JSON:
    text = "".join(p.text for p in parts if isinstance(p, Text))
    entry: JSON = {"role": "assistant", "content": text or None}
    calls = [p for p in parts if isinstance(p, ToolCall)]
    if calls:
        entry["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(dict(c.arguments))},
            }
            for c in calls
        ]
    return entry


def _user(parts: Sequence[Part]) -> list[JSON]:
    # Every tool message must directly follow the assistant message that made the calls.
    wire: list[JSON] = [
        {"role": "tool", "tool_call_id": p.call_id, "content": _result_text(p)}
        for p in parts
        if isinstance(p, ToolResult)
    ]
    text = "".join(p.text for p in parts if isinstance(p, Text))
    if text:
        wire.append({"role": "user", "content": text})
    return wire


def _result_text(result: ToolResult) -> str:
    return f"ERROR: {result.content}" if result.is_error else result.content


def tools(specs: Sequence[ToolSpec]) -> list[JSON]:
    return [
        {
            "type": "function",
            "function": {
                "name": s.name,
                "description": s.description,
                "parameters": dict(s.input_schema),
            },
        }
        for s in specs
    ]


def parse_message(message: Any) -> Message:
    parts: list[Part] = []
    if message.content:
        parts.append(Text(message.content))
    for call in message.tool_calls or ():
        function = getattr(call, "function", None)
        if function is None:
            continue  # custom (non-function) tools are never offered
        parts.append(
            ToolCall(call.id, function.name, _arguments(function.name, function.arguments))
        )
    return Message("assistant", tuple(parts))


def _arguments(name: str, raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise AgentError(
            ErrorKind.AGENT,
            f"the model sent arguments for {name} that are not a JSON object; ask again",
            retryable=True,
        )
    return value


def stop_reason(finish: str | None, message: Message, refusal: str | None) -> StopReason:
    if refusal:
        return StopReason.REFUSAL
    if message.tool_calls:
        return StopReason.TOOL_USE
    return _FINISH.get(finish or "", StopReason.COMPLETE)


def usage(raw: Any) -> Usage:
    """prompt_tokens includes cached tokens; take them out so input excludes cache reads."""
    if raw is None:
        return Usage()
    details = getattr(raw, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", None) or 0) if details else 0
    return Usage(
        input_tokens=max((raw.prompt_tokens or 0) - cached, 0),
        output_tokens=raw.completion_tokens or 0,
        cache_read_tokens=cached,
    )
