"""Per-turn budgets: model calls, total tokens and wall time (bot.compose reads the settings).

The loop checks them between model calls and between tool calls. Exceeding one ends the turn with
an `AgentError` of kind BUDGET (steps, tokens) or TIMEOUT (wall time) that names the budget, its
value and the setting that raises it.

A sub-agent's budget has the turn's as `parent`: each of its model calls counts in both (and up
the chain), its deadline is never later than the parent's, and it stops when either runs out.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bot.agent.errors import AgentError, ErrorKind
from bot.agent.messages import Usage

# One model call never gets more than this, however much of the turn is left: a hung connection
# should fail (and be retried) long before the turn's own deadline.
DEFAULT_CALL_TIMEOUT_CAP = 300.0

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Budgets:
    max_steps: int = 40
    max_tokens: int = 400_000
    turn_timeout: float = 600.0
    call_timeout_cap: float = DEFAULT_CALL_TIMEOUT_CAP

    def __post_init__(self) -> None:
        if self.max_steps <= 0 or self.max_tokens <= 0:
            raise ValueError("max_steps and max_tokens must be positive")
        if self.turn_timeout <= 0 or self.call_timeout_cap <= 0:
            raise ValueError("turn_timeout and call_timeout_cap must be positive seconds")


class TurnBudget:
    """What one turn has used so far, measured against its `Budgets`."""

    def __init__(self, budgets: Budgets, clock: Clock, parent: TurnBudget | None = None) -> None:
        self.budgets = budgets
        self._clock = clock
        self.parent = parent
        self.deadline = clock() + budgets.turn_timeout
        if parent is not None:
            self.deadline = min(self.deadline, parent.deadline)
        self.steps = 0
        self.usage = Usage()
        self.calls: list[Usage] = []  # each model call's tokens, sub-agents' included, in order
        # Numbers sub-agent ids ("explore-1", "review-2") uniquely across the whole turn.
        self.ids: Iterator[int] = parent.ids if parent is not None else itertools.count(1)
        self._lock = threading.Lock()  # sub-agents running at once record into one parent

    def record_call(self, usage: Usage) -> None:
        with self._lock:
            self.steps += 1
            self.usage = self.usage + usage
            self.calls.append(usage)
        if self.parent is not None:
            self.parent.record_call(usage)

    def remaining(self) -> float:
        return self.deadline - self._clock()

    def expired(self) -> bool:
        return self.remaining() <= 0

    def call_timeout(self) -> float:
        return max(min(self.remaining(), self.budgets.call_timeout_cap), 0.0)

    def check(self) -> None:
        """Raise the error of the first budget this turn (or a turn it runs in) has used up."""
        if self.parent is not None:
            self.parent.check()
            if self.steps >= self.budgets.max_steps:  # the sub-agent's own, tighter limit
                raise AgentError(
                    ErrorKind.BUDGET,
                    f"this sub-agent's step limit is reached ({self.steps} model calls); "
                    "ask a narrower question",
                )
        b = self.budgets
        if self.steps >= b.max_steps:
            raise AgentError(
                ErrorKind.BUDGET,
                f"step budget used up: {self.steps} model calls of max {b.max_steps} "
                "(TANKA_BOT_MAX_STEPS); reply to continue, or raise the limit",
            )
        if self.usage.total >= b.max_tokens:
            raise AgentError(
                ErrorKind.BUDGET,
                f"token budget used up: {self.usage.total} tokens of max {b.max_tokens} "
                "(TANKA_BOT_MAX_TOKENS); reply to continue, or raise the limit",
            )
        if self.expired():
            raise self.timeout_error()

    def timeout_error(self) -> AgentError:
        return AgentError(
            ErrorKind.TIMEOUT,
            f"turn timeout reached: {self.budgets.turn_timeout:g} s "
            "(TANKA_BOT_TURN_TIMEOUT); reply to continue, or raise the limit",
        )
