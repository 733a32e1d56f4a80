"""Conversations survive a JSON round trip; damaged data is refused with the field named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.agent.codec import conversation_from_dict, conversation_to_dict
from bot.agent.conversation import Conversation
from bot.agent.messages import Message, Text, ToolCall, ToolResult, Usage


def sample() -> Conversation:
    history = [
        Message.user("scale prod"),
        Message(
            "assistant",
            (
                Text("Reading.", signature=b"\x00\xffsig"),
                ToolCall("c1", "file_read", {"path": "a", "nested": {"n": [1, 2]}}, b"+/="),
            ),
        ),
        Message("user", (ToolResult("c1", "file_read", "{ a: 1 }\n", is_error=False),)),
        Message("assistant", (Text("Done — ünïcode kept."),)),
    ]
    return Conversation(history, usage=Usage(10, 2, 3, 4), turns=1)


def test_round_trip_through_json() -> None:
    original = sample()
    text = json.dumps(conversation_to_dict(original))
    restored = conversation_from_dict(json.loads(text))
    assert restored.history == original.history
    assert restored.usage == original.usage
    assert restored.turns == 1


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d.update(version=99), "unsupported conversation format 99"),
        (lambda d: d.update(messages="x"), "messages: expected a list"),
        (lambda d: d["messages"][0].update(role="system"), "messages.0: expected an object"),
        (lambda d: d["messages"][1]["parts"][1].pop("id"), "messages.1.parts.1: missing field"),
        (lambda d: d["messages"][1]["parts"][0].update(type="image"), "unknown part type"),
        (lambda d: d["messages"][1]["parts"][1].update(arguments=[1]), "expected an object"),
        (lambda d: d["usage"].update(input_tokens="many"), "expected whole numbers"),
    ],
)
def test_damaged_data_is_refused(damage: Any, message: str) -> None:
    data = conversation_to_dict(sample())
    damage(data)
    with pytest.raises(ValueError, match=message):
        conversation_from_dict(data)
