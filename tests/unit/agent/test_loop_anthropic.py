"""The loop with the real Anthropic adapter and SDK against the fake Messages API.

The fake enforces the API's history rules (alternating roles, every tool_use answered in the
next message), so these tests prove that the histories the loop leaves behind, after success,
a budget stop or a failed call, are accepted on the next turn.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.agent.agent import Agent
from bot.agent.budget import Budgets
from bot.agent.conversation import Conversation
from bot.agent.errors import ErrorKind
from bot.agent.events import RetryEvent
from bot.agent.messages import Usage
from bot.agent.providers.anthropic import AnthropicProvider
from bot.agent.retry import RetryPolicy
from fakes.anthropic_server import (
    FakeAnthropic,
    anthropic_error,
    anthropic_message,
    anthropic_text,
    anthropic_tool_use,
    anthropic_usage,
    tool_use_block,
)
from tests.unit.agent.helpers import Recorder, registry
from tools.context import ToolContext


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic(api_key="sk-test") as server:
        yield server


def make_agent(fake: FakeAnthropic, budgets: Budgets | None = None) -> Agent:
    provider = AnthropicProvider("sk-test", "claude-test", base_url=fake.url, strict_responses=True)
    return Agent(
        provider,
        registry(),
        system_prompt="test",
        budgets=budgets,
        retry=RetryPolicy(base_delay=0.001, max_delay=0.01),
        poll=0.02,
    )


def test_tools_retries_and_a_second_turn(fake: FakeAnthropic, tmp_path: Path) -> None:
    fake.script(
        anthropic_message(
            tool_use_block("toolu_1", "echo", {"text": "a"}),
            tool_use_block("toolu_2", "echo", {"text": "b", "times": 2}),
            usage=anthropic_usage(input=100, output=20, cache_read=50),
        ),
        anthropic_error(529, "overloaded_error", "Overloaded", headers={"retry-after-ms": "1"}),
        anthropic_text("first answer", usage=anthropic_usage(input=130, output=5)),
        anthropic_text("second answer"),
    )
    agent = make_agent(fake)
    conversation = Conversation()
    recorder = Recorder()
    ctx = ToolContext(root=tmp_path)

    first = agent.run(conversation, "one", ctx, observer=recorder)
    assert first.ok, first.error
    assert first.text == "first answer"
    assert first.usage == Usage(230, 25, 50, 0)
    assert len(recorder.of(RetryEvent)) == 1
    second = agent.run(conversation, "two", ctx)
    assert second.ok, second.error
    assert second.text == "second answer"

    sent = fake.messages_requests()
    results = sent[1]["messages"][2]["content"]
    assert [(r["tool_use_id"], r["content"]) for r in results] == [
        ("toolu_1", "a"),
        ("toolu_2", "bb"),
    ]
    assert [m["role"] for m in sent[3]["messages"]] == ["user", "assistant"] * 2 + ["user"]


def test_history_after_a_budget_stop_is_accepted(fake: FakeAnthropic, tmp_path: Path) -> None:
    fake.script(
        anthropic_tool_use("toolu_9", "echo", {"text": "x"}),
        anthropic_text("resumed"),
    )
    conversation = Conversation()
    ctx = ToolContext(root=tmp_path)
    stopped = make_agent(fake, Budgets(max_steps=1)).run(conversation, "go", ctx)
    assert stopped.error is not None
    assert stopped.error.kind is ErrorKind.BUDGET

    resumed = make_agent(fake).run(conversation, "continue", ctx)
    assert resumed.ok, resumed.error
    assert resumed.text == "resumed"


def test_history_after_a_failed_first_call_is_accepted(fake: FakeAnthropic, tmp_path: Path) -> None:
    fake.script(
        anthropic_error(400, "invalid_request_error", "prompt is too long"),
        anthropic_text("ok now"),
    )
    conversation = Conversation()
    ctx = ToolContext(root=tmp_path)
    agent = make_agent(fake)
    failed = agent.run(conversation, "huge", ctx)
    assert failed.error is not None
    assert failed.error.kind is ErrorKind.INVALID
    assert len(fake.messages_requests()) == 1  # not retried

    again = agent.run(conversation, "smaller", ctx)
    assert again.ok, again.error
