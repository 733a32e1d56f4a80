"""One turn's state machine: checkpoint, model call (with retries), tools, repeat.

Kept apart from `loop.py` so the public surface there stays small; nothing outside the agent
package needs this module.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from bot.agent.budget import Budgets, Clock, TurnBudget
from bot.agent.cancel import CancelToken
from bot.agent.errors import AgentError, ErrorKind
from bot.agent.events import (
    MAIN,
    AgentMeta,
    DoneEvent,
    ErrorEvent,
    Event,
    Observer,
    RetryEvent,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
    notify,
)
from bot.agent.messages import (
    LLMProvider,
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    Text,
    ToolCall,
    ToolResult,
    masked,
)
from bot.agent.retry import RetryPolicy, call_with_retries
from bot.agent.worker import run_abandonable
from tools.context import ToolContext
from tools.registry import ToolOutcome, ToolRegistry, ToolSpec
from tools.subagent_port import SubAgents

# Sleep on the turn's cancel token; True when the sleep was cut short by a cancellation.
Sleeper = Callable[[CancelToken, float], bool]


class CallScope(SubAgents, Protocol):
    """The sub-agent factory of one tool call; closed (its sub-agents stopped) when it returns."""

    def close(self) -> None: ...


# Makes a tool call's scope (bot.agent.subagents.SubAgentScope); None: no sub-agents.
ScopeFactory = Callable[["Turn"], CallScope]
# Gives a provider for another model id, for sub-agents that ask for one.
ProviderFactory = Callable[[str], LLMProvider]


@dataclass(frozen=True, slots=True)
class TurnSettings:
    system_prompt: str
    budgets: Budgets
    retry: RetryPolicy
    max_output_tokens: int
    clock: Clock
    sleep: Sleeper
    rng: random.Random
    poll: float


@dataclass(frozen=True, slots=True)
class Outcome:
    text: str
    stop_reason: StopReason | None = None
    error: AgentError | None = None


class Turn:
    def __init__(
        self,
        provider: LLMProvider,
        registry: ToolRegistry,
        settings: TurnSettings,
        *,
        history: tuple[Message, ...],
        prompt: Message,
        ctx: ToolContext,
        observer: Observer,
        cancel: CancelToken,
        budget: TurnBudget | None = None,
        meta: AgentMeta = MAIN,
        open_scope: ScopeFactory | None = None,
        providers: ProviderFactory | None = None,
    ) -> None:
        self.provider = provider
        self.registry = registry
        self.settings = settings
        self.history = history
        self.observer = observer
        self.cancel = cancel
        self.budget = budget or TurnBudget(settings.budgets, settings.clock)
        # Sub-agents: who this turn is, and how its tool calls get a scope.
        self.meta = meta
        self.open_scope = open_scope
        self.providers = providers
        self.messages: list[Message] = [prompt]
        self.tools_run = 0
        # Tool calls of the last response that have no result message yet, and the results so far.
        self.pending: tuple[ToolCall, ...] = ()
        self.results: list[ToolResult] = []
        outer = ctx.cancelled
        # Long tools poll this: a cancellation or the turn deadline stops them too.
        self.ctx = replace(ctx, cancelled=lambda: self._stop_reason() is not None or outer())

    def run(self) -> Outcome:
        specs = self.registry.specs()
        try:
            while True:
                self._checkpoint()
                response = self._call_model(specs)
                calls = response.message.tool_calls
                if not calls:
                    return self._finish(response)
                self._run_tools(calls)
        except AgentError as error:
            return self._fail(error)

    def _emit(self, event: Event) -> None:
        notify(self.observer, event)

    def _stop_reason(self) -> AgentError | None:
        if self.cancel.is_set():
            return AgentError(ErrorKind.CANCELLED, self.cancel.reason)
        if self.budget.expired():
            return self.budget.timeout_error()
        return None

    def _check_stop(self) -> None:
        """Between tool calls: only a cancellation or the deadline can have changed."""
        reason = self._stop_reason()
        if reason is not None:
            raise reason

    def _checkpoint(self) -> None:
        """Before a model call: every budget, steps and tokens included."""
        self._check_stop()
        self.budget.check()

    def _call_model(self, specs: list[ToolSpec]) -> ModelResponse:
        s = self.settings

        def attempt() -> ModelResponse:
            # Everything the model reads passes the session's mask here, whoever wrote it: the
            # request, a reviewer's or an explorer's brief, a tool result, the history.
            mask = self.ctx.secret_mask.apply
            request = ModelRequest(
                system=mask(s.system_prompt),
                messages=masked((*self.history, *self.messages), mask),
                tools=specs,
                max_output_tokens=s.max_output_tokens,
                timeout=self.budget.call_timeout(),
            )
            return run_abandonable(
                lambda: self.provider.complete(request), self._stop_reason, poll=s.poll
            )

        response = call_with_retries(
            attempt,
            policy=s.retry,
            rng=s.rng,
            sleep=lambda seconds: s.sleep(self.cancel, seconds),
            remaining=self.budget.remaining,
            on_retry=lambda n, delay, err: self._emit(RetryEvent(n, delay, err)),
            cancelled_message=self.cancel.reason,
        )
        self._record(response)
        return response

    def _record(self, response: ModelResponse) -> None:
        self.budget.record_call(response.usage)
        self.messages.append(response.message)
        self._emit(UsageEvent(self.budget.steps, response.usage, self.budget.usage))
        for part in response.message.parts:
            if isinstance(part, Text) and part.text:
                self._emit(TextEvent(part.text))

    def _run_tools(self, calls: tuple[ToolCall, ...]) -> None:
        # Sequential and in order: tools edit one checkout, and results must match call order.
        self.pending, self.results = calls, []
        for call in calls:
            self._check_stop()
            self._emit(ToolCallEvent(call))
            started = time.monotonic()
            outcome = self._execute(call)
            result = ToolResult(call.id, call.name, outcome.content, outcome.is_error)
            self.results.append(result)
            self.tools_run += 1
            self._emit(ToolResultEvent(call, result, time.monotonic() - started))
        self._flush_results()

    def _execute(self, call: ToolCall) -> ToolOutcome:
        if self.open_scope is None:
            return self.registry.execute(self.ctx, call.name, call.arguments)
        # Sub-agents exist only while this call runs: closing the scope stops any left running.
        scope = self.open_scope(self)
        try:
            ctx = replace(self.ctx, subagents=scope)
            return self.registry.execute(ctx, call.name, call.arguments)
        finally:
            scope.close()

    def _flush_results(self, reason: str = "") -> None:
        """Close the open tool round: one user message with a result for every call."""
        if not self.pending:
            return
        done = {r.call_id for r in self.results}
        missing = [
            ToolResult(c.id, c.name, f"not run: {reason}", is_error=True)
            for c in self.pending
            if c.id not in done
        ]
        self.messages.append(Message("user", (*self.results, *missing)))
        self.pending, self.results = (), []

    def _finish(self, response: ModelResponse) -> Outcome:
        b = self.budget
        text = response.message.text
        self._emit(DoneEvent(text, response.stop_reason, b.steps, b.usage))
        return Outcome(text, response.stop_reason)

    def _fail(self, error: AgentError) -> Outcome:
        self._flush_results(str(error))
        # An assistant note keeps roles alternating and tells the model, next turn, that this
        # one was cut short (and why) rather than finished.
        note = f"[turn stopped before finishing: {error}]"
        self.messages.append(Message("assistant", (Text(note),)))
        b = self.budget
        self._emit(ErrorEvent(error, b.steps, b.usage))
        return Outcome("", None, error)
