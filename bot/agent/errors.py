"""Agent errors carry a kind so callers choose between retrying, reporting and giving up."""

from __future__ import annotations

from enum import StrEnum

from bot.errors import ServiceUnavailable


class ErrorKind(StrEnum):
    AGENT = "agent"  # the model provider answered with an error, or an unusable answer
    TOOL = "tool"  # a tool failed in a way the model cannot recover from
    TIMEOUT = "timeout"  # a call or the whole turn ran out of time
    RATE_LIMIT = "rate_limit"  # 429 or provider overload: retry after a pause
    NETWORK = "network"  # connection refused, reset, DNS, TLS
    INVALID = "invalid"  # a request we built was rejected (schema, auth, bad model id)
    CANCELLED = "cancelled"  # a person stopped the turn
    BUDGET = "budget"  # max steps or max tokens reached


class AgentError(ServiceUnavailable):
    """A model call (or the turn around it) that cannot go on; `kind` says whether to retry.

    Under ServiceUnavailable (bot.errors): most kinds are the model provider failing. The loop
    turns every AgentError into the turn's result, so one rarely travels further.
    """

    dependency = "model"

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after  # seconds the provider asked us to wait, if it said
        self.status = status

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.message}"

    def __repr__(self) -> str:
        return f"AgentError(kind={self.kind.value!r}, message={self.message!r})"
