"""The agent loop: send the conversation, run the tools the model asks for, repeat until done.

One `Agent` serves many turns; `run_turn` is one user request. It returns a `TurnResult` whatever
happens: errors, budgets, timeouts and cancellations end the turn with `error` set, and the new
messages are always a valid continuation of the history (tool calls that got no result get an
error result), so the next turn can be sent as is. Edits tools made are never undone.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bot.agent.budget import Budgets, Clock, TurnBudget
from bot.agent.cancel import CancelToken
from bot.agent.conversation import Conversation
from bot.agent.errors import AgentError
from bot.agent.events import Observer, ignore
from bot.agent.messages import LLMProvider, Message, StopReason, Usage
from bot.agent.retry import RetryPolicy
from bot.agent.subagents import Lineage, SerialObserver, SubAgentScope, open_scope
from bot.agent.turn import ProviderFactory, Sleeper, Turn, TurnSettings
from tools.context import ToolContext
from tools.registry import ToolRegistry

__all__ = ["Agent", "TurnResult"]


@dataclass(frozen=True, slots=True)
class TurnResult:
    text: str  # the model's answer: the text of its last response; empty if the turn failed
    messages: tuple[Message, ...]  # what this turn adds to the history
    # Model calls are counted in the turn's budget: its sub-agents' calls are included, and so
    # are earlier runs on the same budget (a revision after a review).
    calls: tuple[Usage, ...]  # tokens of each model call, in order
    usage: Usage  # the sum of `calls`
    steps: int  # model calls made
    tool_calls: int  # tools run
    stop_reason: StopReason | None  # why the model stopped, if it did
    error: AgentError | None = None  # why the turn stopped early, if it did

    @property
    def ok(self) -> bool:
        return self.error is None


def _wait_on(token: CancelToken, seconds: float) -> bool:
    return token.wait(seconds)


class Agent:
    """A model, its tools and the rules of a turn. Thread-safe: one turn per conversation."""

    def __init__(
        self,
        provider: LLMProvider,
        registry: ToolRegistry,
        *,
        system_prompt: str,
        budgets: Budgets | None = None,
        retry: RetryPolicy | None = None,
        max_output_tokens: int = 8192,
        clock: Clock = time.monotonic,
        sleep: Sleeper = _wait_on,
        rng: random.Random | None = None,
        poll: float = 0.1,
        providers: ProviderFactory | None = None,
    ) -> None:
        self.provider = provider
        self.registry = registry
        self.providers = providers  # for sub-agents asking for another model; None: refused
        self.settings = TurnSettings(
            system_prompt=system_prompt,
            budgets=budgets or Budgets(),
            retry=retry or RetryPolicy(),
            max_output_tokens=max_output_tokens,
            clock=clock,
            sleep=sleep,
            rng=rng or random.Random(),  # noqa: S311 - backoff jitter only
            poll=poll,
        )

    def run_turn(
        self,
        history: Sequence[Message],
        prompt: str | Message,
        ctx: ToolContext,
        *,
        observer: Observer = ignore,
        cancel: CancelToken | None = None,
        budget: TurnBudget | None = None,
    ) -> TurnResult:
        """Run one user request on top of `history` (which is not modified).

        `budget` (from `new_budget`) continues a budget already partly used, so that follow-up
        work on the same request (a revision after a review) shares its limits and counts.
        """
        message = Message.user(prompt) if isinstance(prompt, str) else prompt
        turn = Turn(
            self.provider,
            self.registry,
            self.settings,
            history=tuple(history),
            prompt=message,
            ctx=ctx,
            observer=SerialObserver(observer),
            cancel=cancel or CancelToken(),
            budget=budget,
            open_scope=open_scope,
            providers=self.providers,
        )
        outcome = turn.run()
        budget = turn.budget
        return TurnResult(
            text=outcome.text,
            messages=tuple(turn.messages),
            calls=tuple(budget.calls),
            usage=budget.usage,
            steps=budget.steps,
            tool_calls=turn.tools_run,
            stop_reason=outcome.stop_reason,
            error=outcome.error,
        )

    def new_budget(self) -> TurnBudget:
        """A fresh budget with this agent's limits, starting now."""
        return TurnBudget(self.settings.budgets, self.settings.clock)

    def subagents(
        self,
        ctx: ToolContext,
        *,
        budget: TurnBudget,
        observer: Observer = ignore,
        cancel: CancelToken | None = None,
    ) -> SubAgentScope:
        """A sub-agent factory outside any tool call (the reviewer, once a turn has ended).

        Its sub-agents are depth 1, count in `budget` and report to `observer`; close the scope
        (or cancel the token) to stop them.
        """
        lineage = Lineage(
            provider=self.provider,
            registry=self.registry,
            settings=self.settings,
            budget=budget,
            cancel=cancel or CancelToken(),
            observer=SerialObserver(observer),
            open_scope=open_scope,
            providers=self.providers,
        )
        return SubAgentScope(lineage, ctx)

    def run(
        self,
        conversation: Conversation,
        prompt: str | Message,
        ctx: ToolContext,
        *,
        observer: Observer = ignore,
        cancel: CancelToken | None = None,
    ) -> TurnResult:
        """`run_turn` on a conversation's history, recording the result in it."""
        result = self.run_turn(conversation.history, prompt, ctx, observer=observer, cancel=cancel)
        conversation.record(result.messages, result.usage)
        return result
