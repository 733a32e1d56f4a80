"""Neutral messages to Anthropic request JSON: merging, ordering, caching, empty text."""

from __future__ import annotations

import pytest

from bot.agent.errors import AgentError
from bot.agent.messages import Message, Text, ToolCall, ToolResult, ToolSpec
from bot.agent.providers import anthropic_wire as wire

CACHE = {"type": "ephemeral"}


def test_same_role_messages_merge_and_results_come_first() -> None:
    wired = wire.message_params(
        [
            Message.user("a"),
            Message.user("b"),
            Message("assistant", (Text("  "), ToolCall("t1", "grep", {"q": "x"}))),
            Message("user", (Text("note"),)),
            Message("user", (ToolResult("t1", "grep", "hit", is_error=True),)),
        ]
    )
    assert wired == [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "grep", "input": {"q": "x"}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "hit", "is_error": True},
                {"type": "text", "text": "note", "cache_control": CACHE},
            ],
        },
    ]


def test_messages_without_content_are_dropped() -> None:
    assert wire.message_params([Message.user(""), Message.user("x")]) == [
        {"role": "user", "content": [{"type": "text", "text": "x", "cache_control": CACHE}]}
    ]
    assert wire.message_params([]) == []


def test_system_and_last_tool_are_cache_breakpoints() -> None:
    assert wire.system_blocks("") == []
    assert wire.system_blocks("sys") == [{"type": "text", "text": "sys", "cache_control": CACHE}]
    specs = [ToolSpec(n, "d", {"type": "object", "properties": {}}) for n in ("a", "b")]
    params = wire.tool_params(specs)
    assert ["cache_control" in p for p in params] == [False, True]
    assert wire.tool_params([]) == []


def test_non_object_schema_is_refused() -> None:
    with pytest.raises(AgentError, match="object schema"):
        wire.tool_params([ToolSpec("a", "d", {"type": "string"})])
