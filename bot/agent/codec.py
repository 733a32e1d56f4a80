"""Conversations as JSON-ready dicts, so a session store (memory or Redis) can keep them.

The format is versioned and plain: parts are tagged "text", "tool_call" or "tool_result";
provider signatures (Gemini) travel as base64. Decoding checks the shape and raises ValueError
naming the bad field, because a store may hold data written by an older or newer release.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from bot.agent.conversation import Conversation
from bot.agent.messages import Message, Part, Text, ToolCall, ToolResult, Usage

FORMAT_VERSION = 1
_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def _b64(data: bytes | None) -> str | None:
    return base64.b64encode(data).decode("ascii") if data is not None else None


def _unb64(data: Any, where: str) -> bytes | None:
    if data is None:
        return None
    if not isinstance(data, str):
        raise ValueError(f"{where}.signature: expected base64 text")
    return base64.b64decode(data, validate=True)


def _encode_part(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text, "signature": _b64(part.signature)}
    if isinstance(part, ToolCall):
        return {
            "type": "tool_call",
            "id": part.id,
            "name": part.name,
            "arguments": dict(part.arguments),
            "signature": _b64(part.signature),
        }
    return {
        "type": "tool_result",
        "call_id": part.call_id,
        "name": part.name,
        "content": part.content,
        "is_error": part.is_error,
    }


def _decode_part(data: Mapping[str, Any], where: str) -> Part:
    kind = data.get("type")
    try:
        if kind == "text":
            return Text(str(data["text"]), _unb64(data.get("signature"), where))
        if kind == "tool_call":
            arguments = data["arguments"]
            if not isinstance(arguments, dict):
                raise ValueError(f"{where}.arguments: expected an object")
            signature = _unb64(data.get("signature"), where)
            return ToolCall(str(data["id"]), str(data["name"]), arguments, signature)
        if kind == "tool_result":
            return ToolResult(
                str(data["call_id"]),
                str(data["name"]),
                str(data["content"]),
                bool(data.get("is_error", False)),
            )
    except KeyError as exc:
        raise ValueError(f"{where}: missing field {exc.args[0]!r}") from None
    raise ValueError(f"{where}.type: unknown part type {kind!r}")


def conversation_to_dict(conversation: Conversation) -> dict[str, Any]:
    return {
        "version": FORMAT_VERSION,
        "turns": conversation.turns,
        "usage": {name: getattr(conversation.usage, name) for name in _USAGE_FIELDS},
        "messages": [
            {"role": m.role, "parts": [_encode_part(p) for p in m.parts]}
            for m in conversation.history
        ],
    }


def _decode_message(data: Any, i: int) -> Message:
    where = f"messages.{i}"
    if not isinstance(data, dict) or data.get("role") not in ("user", "assistant"):
        raise ValueError(f"{where}: expected an object with role 'user' or 'assistant'")
    parts = data.get("parts")
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        raise ValueError(f"{where}.parts: expected a list of objects")
    decoded = tuple(_decode_part(p, f"{where}.parts.{j}") for j, p in enumerate(parts))
    return Message(data["role"], decoded)


def conversation_from_dict(data: Mapping[str, Any]) -> Conversation:
    """The inverse of `conversation_to_dict`; ValueError naming the first bad field."""
    if data.get("version") != FORMAT_VERSION:
        raise ValueError(
            f"version: unsupported conversation format {data.get('version')!r} "
            f"(this release reads {FORMAT_VERSION})"
        )
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise ValueError("messages: expected a list")
    usage_data = data.get("usage") or {}
    try:
        usage = Usage(*(int(usage_data.get(name, 0)) for name in _USAGE_FIELDS))
        turns = int(data.get("turns", 0))
    except (TypeError, ValueError, AttributeError):
        raise ValueError("usage/turns: expected whole numbers") from None
    history = [_decode_message(m, i) for i, m in enumerate(messages)]
    return Conversation(history, usage=usage, turns=turns)
