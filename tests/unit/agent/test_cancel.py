"""Cancellation from another thread stops a turn promptly, mid-model-call or mid-tool."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bot.agent.agent import Agent, TurnResult
from bot.agent.cancel import CancelToken
from bot.agent.errors import ErrorKind
from bot.agent.events import ErrorEvent
from bot.agent.messages import ModelRequest, ModelResponse
from bot.agent.retry import RetryPolicy
from fakes.scripted_provider import ScriptedProvider, call, overloaded, reply, tools
from tests.unit.agent.helpers import (
    Gate,
    NoInput,
    Recorder,
    assert_well_formed,
    context,
    make_agent,
    registry,
)
from tools.context import ToolContext
from tools.registry import Tool

JOIN_BOUND = 10.0  # generous: the loop polls every few hundredths of a second


class Runner:
    """Runs one turn on a background thread, as the Slack runner and the REPL do."""

    def __init__(self, agent: Agent, ctx: ToolContext) -> None:
        self.token = CancelToken()
        self.recorder = Recorder()
        self.result: TurnResult | None = None
        self.thread = threading.Thread(target=self._run, args=(agent, ctx), daemon=True)

    def _run(self, agent: Agent, ctx: ToolContext) -> None:
        self.result = agent.run_turn([], "go", ctx, observer=self.recorder, cancel=self.token)

    def cancel_and_join(self) -> TurnResult:
        self.token.cancel()
        self.thread.join(JOIN_BOUND)
        assert not self.thread.is_alive(), "the turn did not stop after cancel()"
        assert self.result is not None
        return self.result


def test_cancel_token_is_one_way() -> None:
    token = CancelToken()
    assert not token.is_set()
    assert not token.wait(0)
    token.cancel("stop emoji")
    token.cancel("again")
    assert token.is_set()
    assert token.wait(5)
    assert token.reason == "stop emoji"


def test_cancel_while_the_model_is_thinking(tmp_path: Path) -> None:
    entered, release = threading.Event(), threading.Event()

    def thinking(request: ModelRequest) -> ModelResponse:
        entered.set()
        release.wait(30)
        return reply("too late")

    provider = ScriptedProvider([tools(call("echo", text="x")), thinking])
    runner = Runner(make_agent(provider), context(tmp_path))
    runner.thread.start()
    try:
        assert entered.wait(JOIN_BOUND)
        result = runner.cancel_and_join()
    finally:
        release.set()

    assert result.error is not None
    assert result.error.kind is ErrorKind.CANCELLED
    assert "edits made so far are kept" in str(result.error)
    assert result.steps == 1
    assert result.tool_calls == 1
    assert_well_formed(result.messages)
    assert runner.recorder.of(ErrorEvent)[0].error is result.error


def test_cancel_while_a_tool_runs(tmp_path: Path) -> None:
    gate = Gate()
    provider = ScriptedProvider([tools(call("gate", "g"), call("echo", "e", text="x"))])
    runner = Runner(make_agent(provider, gate=gate), context(tmp_path))
    runner.thread.start()
    assert gate.entered.wait(JOIN_BOUND)
    result = runner.cancel_and_join()

    assert gate.saw_cancel
    assert result.error is not None
    assert result.error.kind is ErrorKind.CANCELLED
    results = {r.call_id: r for r in result.messages[2].tool_results}
    assert results["g"].content == "stopped early"
    assert not results["g"].is_error
    assert results["e"].is_error
    assert results["e"].content.startswith("not run: cancelled")
    assert_well_formed(result.messages)


def test_cancel_interrupts_a_retry_wait(tmp_path: Path) -> None:
    # The real sleep (waiting on the token) and a long retry-after.
    provider = ScriptedProvider([overloaded(retry_after=50), reply("never")])
    agent = Agent(
        provider,
        registry(),
        system_prompt="test",
        retry=RetryPolicy(max_retry_after=60),
        poll=0.02,
    )
    runner = Runner(agent, context(tmp_path))
    runner.thread.start()
    for _ in range(500):
        if provider.requests:
            break
        threading.Event().wait(0.01)
    result = runner.cancel_and_join()
    assert result.error is not None
    assert result.error.kind is ErrorKind.CANCELLED
    assert len(provider.requests) == 1


def test_a_cancelled_token_stops_before_the_first_call(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply("never")])
    token = CancelToken()
    token.cancel()
    result = make_agent(provider).run_turn([], "go", context(tmp_path), cancel=token)
    assert result.error is not None
    assert result.error.kind is ErrorKind.CANCELLED
    assert provider.requests == []


@pytest.mark.parametrize("outer", [True, False])
def test_tools_see_the_callers_own_cancel_flag(tmp_path: Path, outer: bool) -> None:
    seen: list[bool] = []

    def probe(ctx: ToolContext, params: NoInput) -> str:
        seen.append(ctx.cancelled())
        return "probed"

    provider = ScriptedProvider([tools(call("probe")), reply("ok")])
    agent = make_agent(provider)
    agent.registry.register(Tool("probe", "Report the cancel flag.", NoInput, probe))
    agent.run_turn([], "go", ToolContext(root=tmp_path, cancelled=lambda: outer))
    assert seen == [outer]
