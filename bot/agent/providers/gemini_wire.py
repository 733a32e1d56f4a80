"""Neutral messages to google-genai types and back (pure functions, no HTTP).

Thought signatures ride on `Text.signature` / `ToolCall.signature` and go back unchanged on
the same part. Gemini may omit function call ids; we then synthesize one with `SYNTHETIC_ID`
as prefix so the loop can match results, and send no id back for such calls.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from google.genai import types

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

SYNTHETIC_ID = "gemini-call-"

_REFUSALS = frozenset(
    {"SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"}
    | {"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR"}
)
# The model produced something unusable; asking again often works.
_MODEL_FAILURES = frozenset(
    {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"}
    | {"MISSING_THOUGHT_SIGNATURE", "MALFORMED_RESPONSE"}
)
# JSON Schema keywords Gemini rejects or chokes on (nested titles cause malformed calls).
_DROPPED_KEYWORDS = frozenset({"title", "$schema", "examples", "discriminator"})


def contents(messages: Sequence[Message]) -> list[types.Content]:
    """Wire contents: user -> user, assistant -> model; function responses in their own turn."""
    wire: list[types.Content] = []
    for role, group in itertools.groupby(messages, key=lambda m: m.role):
        parts = [p for m in group for p in m.parts if not _is_blank(p)]
        if role == "assistant":
            wire.append(types.Content(role="model", parts=[_model_part(p) for p in parts]))
            continue
        # A user turn mixing function responses with text reads as model-authored to Gemini.
        responses = [_response_part(p) for p in parts if isinstance(p, ToolResult)]
        texts = [types.Part(text=p.text) for p in parts if isinstance(p, Text) and p.text]
        for chunk in (responses, texts):
            if chunk:
                wire.append(types.Content(role="user", parts=chunk))
    return [c for c in wire if c.parts]


def _is_blank(part: Part) -> bool:
    return isinstance(part, Text) and not part.text and part.signature is None


def _model_part(part: Part) -> types.Part:
    if isinstance(part, ToolCall):
        call = types.FunctionCall(
            id=None if part.id.startswith(SYNTHETIC_ID) else part.id,
            name=part.name,
            args=dict(part.arguments),
        )
        return types.Part(function_call=call, thought_signature=part.signature)
    if isinstance(part, Text):
        return types.Part(text=part.text or None, thought_signature=part.signature)
    raise AgentError(ErrorKind.INVALID, "a tool result cannot be part of an assistant message")


def _response_part(result: ToolResult) -> types.Part:
    key = "error" if result.is_error else "output"
    response = types.FunctionResponse(
        id=None if result.call_id.startswith(SYNTHETIC_ID) else result.call_id,
        name=result.name,
        response={key: result.content},
    )
    return types.Part(function_response=response)


def tools(specs: Sequence[ToolSpec]) -> list[types.Tool]:
    if not specs:
        return []
    declarations = [
        types.FunctionDeclaration(
            name=s.name,
            description=s.description,
            parameters_json_schema=sanitize_schema(s.input_schema),
        )
        for s in specs
    ]
    return [types.Tool(function_declarations=declarations)]


def sanitize_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy without keywords Gemini rejects; property *names* are never touched."""
    clean: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROPPED_KEYWORDS:
            continue
        if key in {"properties", "$defs", "definitions"} and isinstance(value, Mapping):
            clean[key] = {name: _sanitize_any(sub) for name, sub in value.items()}
        else:
            clean[key] = _sanitize_any(value) if key != "enum" else value
    return clean


def _sanitize_any(value: Any) -> Any:
    if isinstance(value, Mapping):
        return sanitize_schema(value)
    if isinstance(value, list):
        return [_sanitize_any(v) for v in value]
    return value


def parse_parts(parts: Iterable[types.Part]) -> Message:
    out: list[Part] = []
    for part in parts:
        signature = part.thought_signature
        if part.function_call is not None:
            call = part.function_call
            call_id = call.id or f"{SYNTHETIC_ID}{uuid.uuid4().hex[:12]}"
            out.append(ToolCall(call_id, call.name or "", dict(call.args or {}), signature))
        elif part.text and not part.thought:
            out.append(Text(part.text, signature))
        elif signature is not None:
            out.append(Text("", signature))  # signature-only part: must still go back
    return Message("assistant", tuple(out))


def stop_reason(finish: str | None, message: Message) -> StopReason:
    """Gemini says STOP for tool calls too, so calls in the message decide first."""
    if finish in _REFUSALS:
        return StopReason.REFUSAL
    if finish in _MODEL_FAILURES:
        raise AgentError(
            ErrorKind.AGENT, f"Gemini ended its answer with {finish}; ask again", retryable=True
        )
    if message.tool_calls:
        return StopReason.TOOL_USE
    if finish == "MAX_TOKENS":
        return StopReason.MAX_TOKENS
    return StopReason.COMPLETE


def usage(meta: types.GenerateContentResponseUsageMetadata | None) -> Usage:
    """promptTokenCount includes cached tokens; thoughts are output we pay for."""
    if meta is None:
        return Usage()
    cached = meta.cached_content_token_count or 0
    prompt = (meta.prompt_token_count or 0) + (meta.tool_use_prompt_token_count or 0)
    output = (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0)
    return Usage(max(prompt - cached, 0), output, cache_read_tokens=cached)
