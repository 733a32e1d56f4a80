"""What a running turn reports to whoever watches it (the terminal, the Slack status message).

Events are frozen values describing complete parts, never deltas. An observer is a plain callable;
the loop calls it on its own thread, in order, and an observer that raises is logged and ignored
so a broken progress display can never break a turn.

Every event names the agent it comes from (`agent`): the main agent is `MAIN` (depth 0); a
sub-agent's events reach the same observer, in order, tagged with its id and depth, and the call
of a mirrored tool event is named `<label>: <tool>` (e.g. "explore: file_search") so a front end
that only shows tool names shows where each call ran (bot.agent.subagents).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.agent.errors import AgentError
from bot.agent.messages import StopReason, ToolCall, ToolResult, Usage

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AgentMeta:
    """Who emitted an event: "main" at depth 0, or a sub-agent ("explore-1" at depth 1, ...)."""

    id: str = "main"
    depth: int = 0


MAIN = AgentMeta()


@dataclass(frozen=True, slots=True)
class TextEvent:
    """Text the model wrote in one response (it may precede tool calls)."""

    text: str
    agent: AgentMeta = MAIN


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    """The loop is about to run a tool the model asked for."""

    call: ToolCall
    agent: AgentMeta = MAIN


@dataclass(frozen=True, slots=True)
class ToolResultEvent:
    """A tool finished; `result.is_error` says whether it failed."""

    call: ToolCall
    result: ToolResult
    seconds: float
    agent: AgentMeta = MAIN


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """Tokens of one model call (`call`) and of the turn so far (`turn`)."""

    step: int
    call: Usage
    turn: Usage
    agent: AgentMeta = MAIN


@dataclass(frozen=True, slots=True)
class RetryEvent:
    """A model call failed with a retryable error; the loop waits `delay` seconds and retries."""

    attempt: int
    delay: float
    error: AgentError
    agent: AgentMeta = MAIN


@dataclass(frozen=True, slots=True)
class DoneEvent:
    """The model finished the turn."""

    text: str
    stop_reason: StopReason
    steps: int
    usage: Usage
    agent: AgentMeta = MAIN


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """The turn stopped early: an error, a budget, a timeout or a cancellation (see error.kind)."""

    error: AgentError
    steps: int
    usage: Usage
    agent: AgentMeta = MAIN


Event = (
    TextEvent | ToolCallEvent | ToolResultEvent | UsageEvent | RetryEvent | DoneEvent | ErrorEvent
)
Observer = Callable[[Event], None]


def ignore(event: Event) -> None:
    """The observer used when nobody watches."""


def notify(observer: Observer, event: Event) -> None:
    """Deliver one event; an observer's failure is logged, never raised into the loop."""
    try:
        observer(event)
    except Exception:
        log.exception("turn observer failed on %s; the turn goes on", type(event).__name__)
