"""Retries of one model call: exponential backoff with full jitter, honouring retry-after.

Providers make exactly one HTTP attempt and mark transient failures `retryable` (rate limits,
overload, 5xx, network errors, a call's own timeout); this is the one place that retries them.
Sleeping goes through an injected function that a cancellation interrupts, so tests run instantly
and a cancelled turn does not sit out a backoff.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from bot.agent.errors import AgentError, ErrorKind

T = TypeVar("T")

# Sleep `seconds`; return True if the wait was interrupted by a cancellation.
Sleep = Callable[[float], bool]
OnRetry = Callable[[int, float, AgentError], None]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0
    # A provider may ask for minutes; past this we retry anyway rather than stall the thread.
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    def delay(self, attempt: int, error: AgentError, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if error.retry_after is not None and error.retry_after >= 0:
            return min(error.retry_after, self.max_retry_after)
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return rng.uniform(0.0, ceiling)


def _amended(error: AgentError, note: str) -> AgentError:
    return AgentError(
        error.kind,
        f"{error.message} ({note})",
        retryable=False,
        retry_after=error.retry_after,
        status=error.status,
    )


def call_with_retries(
    attempt: Callable[[], T],
    *,
    policy: RetryPolicy,
    rng: random.Random,
    sleep: Sleep,
    remaining: Callable[[], float],
    on_retry: OnRetry,
    cancelled_message: str = "cancelled by request",
) -> T:
    """Run `attempt` until it succeeds, fails for good, or the turn has no time left."""
    number = 1
    while True:
        try:
            return attempt()
        except AgentError as error:
            if not error.retryable:
                raise
            if number >= policy.max_attempts:
                raise _amended(error, f"gave up after {number} attempts") from error
            delay = policy.delay(number, error, rng)
            left = remaining()
            if delay >= left:
                note = f"not retried: a {delay:.1f} s wait would pass the turn deadline"
                raise _amended(error, note) from error
            on_retry(number, delay, error)
            if sleep(delay):
                raise AgentError(ErrorKind.CANCELLED, cancelled_message) from error
            number += 1
