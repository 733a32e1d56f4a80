"""Run one blocking call on a worker thread so the turn's thread can walk away from it.

SDK calls cannot be interrupted from outside, so the model call runs on a daemon thread while
the caller polls a stop condition (cancellation, the turn deadline) every `poll` seconds. An
abandoned call finishes in the background and its result is dropped; its own HTTP timeout,
which the loop sets from the turn's remaining time, bounds how long it lingers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from bot.agent.errors import AgentError, ErrorKind

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_POLL = 0.1

# Returns the error to stop with, or None to keep waiting.
StopCheck = Callable[[], AgentError | None]


class _Outcome(Generic[T]):
    __slots__ = ("done", "error", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: T | None = None
        self.error: AgentError | None = None


def _run(fn: Callable[[], T], outcome: _Outcome[T]) -> None:
    try:
        outcome.value = fn()
    except AgentError as exc:
        outcome.error = exc
    except Exception as exc:  # a provider bug becomes a readable, non-retryable error
        log.exception("model provider raised an unexpected error")
        outcome.error = AgentError(
            ErrorKind.AGENT, f"the model provider failed unexpectedly ({type(exc).__name__})"
        )
    finally:
        outcome.done.set()


def run_abandonable(fn: Callable[[], T], stop: StopCheck, *, poll: float = DEFAULT_POLL) -> T:
    """`fn()`, unless `stop()` returns an error first: then raise that error at once."""
    outcome: _Outcome[T] = _Outcome()
    thread = threading.Thread(target=_run, args=(fn, outcome), name="model-call", daemon=True)
    thread.start()
    while not outcome.done.wait(poll):
        reason = stop()
        if reason is not None:
            raise reason
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]  # set whenever no error was
