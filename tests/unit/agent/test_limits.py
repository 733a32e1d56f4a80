"""Budgets end a turn with a clear error, and the history stays valid for the next turn."""

from __future__ import annotations

import threading
from pathlib import Path

from bot.agent.budget import Budgets
from bot.agent.errors import ErrorKind
from bot.agent.messages import ModelRequest, ModelResponse, Usage
from bot.compose import budgets_from_settings
from bot.config import load_settings
from fakes.scripted_provider import ScriptedProvider, call, reply, tools
from tests.unit.agent.helpers import FakeClock, assert_well_formed, context, make_agent


def test_budgets_come_from_settings() -> None:
    settings = load_settings(
        {
            "TANKA_BOT_MAX_STEPS": "3",
            "TANKA_BOT_MAX_TOKENS": "999",
            "TANKA_BOT_TURN_TIMEOUT": "12.5",
        }
    )
    assert budgets_from_settings(settings) == Budgets(3, 999, 12.5)


def test_step_budget_stops_before_the_next_model_call(tmp_path: Path) -> None:
    provider = ScriptedProvider([tools(call("echo", text="x")) for _ in range(5)])
    result = make_agent(provider, budgets=Budgets(max_steps=2)).run_turn(
        [], "loop forever", context(tmp_path)
    )

    assert result.error is not None
    assert result.error.kind is ErrorKind.BUDGET
    assert "step budget" in str(result.error)
    assert "max 2" in str(result.error)
    assert "TANKA_BOT_MAX_STEPS" in str(result.error)
    assert len(provider.requests) == 2
    assert result.steps == 2
    # The tools of the last allowed call still ran.
    assert result.tool_calls == 2
    assert_well_formed(result.messages)
    assert result.messages[-1].role == "assistant"
    assert "turn stopped before finishing" in result.messages[-1].text


def test_token_budget_counts_every_kind_of_token(tmp_path: Path) -> None:
    heavy = Usage(50, 20, cache_read_tokens=20, cache_write_tokens=10)
    provider = ScriptedProvider([tools(call("echo", text="x"), usage=heavy), reply("never")])
    result = make_agent(provider, budgets=Budgets(max_tokens=100)).run_turn(
        [], "go", context(tmp_path)
    )

    assert result.error is not None
    assert result.error.kind is ErrorKind.BUDGET
    assert "token budget" in str(result.error)
    assert "100 tokens of max 100" in str(result.error)
    assert "TANKA_BOT_MAX_TOKENS" in str(result.error)
    assert len(provider.requests) == 1
    assert result.usage.total == 100


def test_turn_timeout_is_checked_between_tool_calls(tmp_path: Path) -> None:
    clock = FakeClock()

    def slow_model(request: ModelRequest) -> ModelResponse:
        clock.advance(61)
        return tools(call("echo", "t1", text="a"), call("echo", "t2", text="b"))

    provider = ScriptedProvider([slow_model])
    result = make_agent(provider, clock=clock, budgets=Budgets(turn_timeout=60)).run_turn(
        [], "go", context(tmp_path)
    )

    assert result.error is not None
    assert result.error.kind is ErrorKind.TIMEOUT
    assert "60 s" in str(result.error)
    assert "TANKA_BOT_TURN_TIMEOUT" in str(result.error)
    assert result.tool_calls == 0
    results = result.messages[2].tool_results
    assert [r.is_error for r in results] == [True, True]
    assert results[0].content.startswith("not run: timeout: turn timeout reached")
    assert_well_formed(result.messages)


def test_turn_timeout_abandons_a_model_call_that_hangs(tmp_path: Path) -> None:
    clock = FakeClock()
    release = threading.Event()

    def hung_model(request: ModelRequest) -> ModelResponse:
        clock.advance(30)  # the deadline passes while the call is still waiting
        release.wait(30)
        return reply("too late")

    provider = ScriptedProvider([hung_model])
    try:
        result = make_agent(provider, clock=clock, budgets=Budgets(turn_timeout=20)).run_turn(
            [], "go", context(tmp_path)
        )
    finally:
        release.set()
    assert result.error is not None
    assert result.error.kind is ErrorKind.TIMEOUT
    assert result.steps == 0
    assert [m.role for m in result.messages] == ["user", "assistant"]


def test_each_call_gets_the_remaining_time_capped(tmp_path: Path) -> None:
    clock = FakeClock()

    def uses_time(request: ModelRequest) -> ModelResponse:
        clock.advance(90)
        return tools(call("echo", text="x"))

    provider = ScriptedProvider([uses_time, reply("ok")])
    budgets = Budgets(turn_timeout=120, call_timeout_cap=100)
    result = make_agent(provider, clock=clock, budgets=budgets).run_turn(
        [], "go", context(tmp_path)
    )
    assert result.ok
    assert [r.timeout for r in provider.requests] == [100, 30]
