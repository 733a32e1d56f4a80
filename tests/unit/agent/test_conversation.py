"""Conversation: history and token totals carried between turns."""

from __future__ import annotations

from bot.agent.conversation import Conversation
from bot.agent.messages import Message, Text, Usage


def test_record_appends_and_counts() -> None:
    conversation = Conversation()
    first = (Message.user("a"), Message("assistant", (Text("b"),)))
    conversation.record(first, Usage(10, 2))
    conversation.record((Message.user("c"),), Usage(5, 1, cache_read_tokens=3))
    assert conversation.history == (*first, Message.user("c"))
    assert conversation.usage == Usage(15, 3, 3, 0)
    assert conversation.turns == 2
    assert repr(conversation) == "Conversation(messages=3, turns=2, tokens=21)"


def test_clear_forgets_history_but_not_cost() -> None:
    conversation = Conversation([Message.user("old")], usage=Usage(7, 7), turns=1)
    conversation.clear()
    assert not conversation.history
    assert conversation.usage == Usage(7, 7)


def test_idle_conversations_have_no_instance_dict() -> None:
    assert not hasattr(Conversation(), "__dict__")
