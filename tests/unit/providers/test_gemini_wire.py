"""Neutral messages to google-genai types: roles, split turns, ids, schemas, usage."""

from __future__ import annotations

import pytest
from google.genai import types

from bot.agent.errors import AgentError
from bot.agent.messages import Message, StopReason, Text, ToolCall, ToolResult, Usage
from bot.agent.providers import gemini_wire as wire


def test_function_responses_get_their_own_user_turn() -> None:
    synthetic = f"{wire.SYNTHETIC_ID}abc"
    contents = wire.contents(
        [
            Message.user("go"),
            Message("assistant", (ToolCall(synthetic, "f", {"a": 1}, b"sig"), Text(""))),
            Message("user", (Text("and hurry"), ToolResult(synthetic, "f", "boom", True))),
        ]
    )
    assert [c.role for c in contents] == ["user", "model", "user", "user"]
    call_part = contents[1].parts[0]  # type: ignore[index]
    assert call_part.function_call is not None
    assert call_part.function_call.id is None
    assert call_part.thought_signature == b"sig"
    assert len(contents[1].parts or []) == 1  # the blank text part is gone
    response = contents[2].parts[0].function_response  # type: ignore[index]
    assert response is not None
    assert (response.id, response.name, response.response) == (None, "f", {"error": "boom"})
    assert contents[3].parts[0].text == "and hurry"  # type: ignore[index]


def test_schema_sanitising_keeps_property_names() -> None:
    schema = {
        "type": "object",
        "title": "Args",
        "$schema": "x",
        "properties": {
            "title": {"type": "string", "title": "Title"},
            "items": {"type": "array", "items": {"type": "string", "title": "I"}},
            "mode": {"enum": ["title", "b"]},
        },
    }
    assert wire.sanitize_schema(schema) == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "items": {"type": "array", "items": {"type": "string"}},
            "mode": {"enum": ["title", "b"]},
        },
    }


def test_parse_parts_synthesizes_ids_and_keeps_signature_only_parts() -> None:
    message = wire.parse_parts(
        [
            types.Part(function_call=types.FunctionCall(name="f", args={"x": 1})),
            types.Part(text="thinking...", thought=True),
            types.Part(thought_signature=b"s"),
        ]
    )
    call, lone = message.parts
    assert isinstance(call, ToolCall)
    assert call.id.startswith(wire.SYNTHETIC_ID)
    assert lone == Text("", b"s")


@pytest.mark.parametrize(
    ("finish", "calls", "expected"),
    [
        ("STOP", True, StopReason.TOOL_USE),
        ("STOP", False, StopReason.COMPLETE),
        (None, False, StopReason.COMPLETE),
        ("MAX_TOKENS", False, StopReason.MAX_TOKENS),
        ("SPII", True, StopReason.REFUSAL),
    ],
)
def test_stop_reason(finish: str | None, calls: bool, expected: StopReason) -> None:
    parts = (ToolCall("i", "f", {}),) if calls else (Text("x"),)
    assert wire.stop_reason(finish, Message("assistant", parts)) is expected


def test_model_failures_raise() -> None:
    with pytest.raises(AgentError, match="MISSING_THOUGHT_SIGNATURE"):
        wire.stop_reason("MISSING_THOUGHT_SIGNATURE", Message("assistant", ()))


def test_usage_takes_cached_tokens_out_of_the_prompt() -> None:
    meta = types.GenerateContentResponseUsageMetadata(
        prompt_token_count=1000,
        cached_content_token_count=800,
        tool_use_prompt_token_count=5,
        candidates_token_count=40,
        thoughts_token_count=60,
    )
    assert wire.usage(meta) == Usage(205, 100, cache_read_tokens=800)
    assert wire.usage(None) == Usage()
