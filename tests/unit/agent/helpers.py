"""Shared pieces for agent tests: a controllable clock, a recording sleep, small tools."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bot.agent.agent import Agent
from bot.agent.budget import Budgets
from bot.agent.cancel import CancelToken
from bot.agent.events import Event
from bot.agent.messages import Message
from bot.agent.retry import RetryPolicy
from fakes.scripted_provider import ScriptedProvider
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import Tool, ToolRegistry


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class RecordingSleep:
    """Sleeps instantly, advancing the fake clock; reports a cancellation like the real one."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.durations: list[float] = []

    def __call__(self, token: CancelToken, seconds: float) -> bool:
        self.durations.append(seconds)
        self.clock.advance(seconds)
        return token.is_set()


class EchoInput(BaseModel):
    text: str
    times: int = 1


class NoInput(BaseModel):
    pass


def _echo(ctx: ToolContext, params: EchoInput) -> str:
    return params.text * params.times


def _refuse(ctx: ToolContext, params: NoInput) -> str:
    raise ToolError("refused on purpose")


def _crash(ctx: ToolContext, params: NoInput) -> str:
    raise RuntimeError("boom")


class Gate:
    """A tool that waits until the turn is cancelled (as long tools poll ctx.cancelled)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.saw_cancel = False

    def run(self, ctx: ToolContext, params: NoInput) -> str:
        self.entered.set()
        for _ in range(500):  # 50 s at most, so a broken test cannot hang forever
            if ctx.cancelled():
                self.saw_cancel = True
                return "stopped early"
            threading.Event().wait(0.1)
        return "finished"


def registry(gate: Gate | None = None) -> ToolRegistry:
    tools: list[Tool[Any]] = [
        Tool("echo", "Repeat text.", EchoInput, _echo),
        Tool("refuse", "Always refuses.", NoInput, _refuse),
        Tool("crash", "Always crashes.", NoInput, _crash),
    ]
    if gate is not None:
        tools.append(Tool("gate", "Wait for cancel.", NoInput, gate.run))
    return ToolRegistry(tools)


def make_agent(
    provider: ScriptedProvider,
    *,
    clock: FakeClock | None = None,
    sleep: RecordingSleep | None = None,
    budgets: Budgets | None = None,
    retry: RetryPolicy | None = None,
    gate: Gate | None = None,
) -> Agent:
    clock = clock or FakeClock()
    return Agent(
        provider,
        registry(gate),
        system_prompt="You are a test.",
        budgets=budgets,
        retry=retry,
        clock=clock,
        sleep=sleep or RecordingSleep(clock),
        rng=random.Random(7),  # noqa: S311 - deterministic jitter
        poll=0.02,
    )


def context(tmp_path: Path) -> ToolContext:
    return ToolContext(root=tmp_path)


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def assert_well_formed(history: tuple[Message, ...]) -> None:
    """Every tool call is answered by the next message, with results in call order."""
    for i, message in enumerate(history):
        if message.role == "assistant" and message.tool_calls:
            answer = history[i + 1]
            assert answer.role == "user"
            assert [r.call_id for r in answer.tool_results] == [c.id for c in message.tool_calls]
