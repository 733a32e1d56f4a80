"""Turn provider failures into `AgentError`s with a kind, a retry hint and a fixable message.

Every adapter extracts (status, provider error type, detail, headers) from its SDK's exception
and hands them to `ErrorMapper`, so the three providers classify alike. The loop owns retries:
`retryable` and `retry_after` are its inputs. Messages never contain the API key: the mapper
scrubs it (and anything else credential-shaped) from any text a provider echoes back.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from dataclasses import dataclass

from bot.agent.errors import AgentError, ErrorKind
from tools.redaction import scrub_credentials

_DETAIL_LIMIT = 300

# Anthropic (and OpenAI-compatible) error type strings mapped to the status they stand for.
# An error event inside a stream arrives with HTTP 200, so its type string is all we have.
_TYPE_STATUS: Mapping[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def retry_after_seconds(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """Seconds to wait from `retry-after-ms` (preferred) or `retry-after` (seconds or a date)."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = _as_float(lowered.get("retry-after-ms"))
    if millis is not None and millis >= 0:
        return millis / 1000.0
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    seconds = _as_float(raw)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)


def _as_float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value.strip())
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class ErrorMapper:
    """Builds the `AgentError` for one provider; `secret` is scrubbed from every message."""

    provider: str  # shown to people: "Anthropic", "Gemini", "OpenAI"
    model: str
    key_var: str  # the variable holding the key, named in auth failures
    base_url_var: str
    secret: str = ""

    def status(
        self,
        status: int,
        detail: str,
        *,
        error_type: str | None = None,
        headers: Mapping[str, str] | None = None,
        retry_after: float | None = None,
    ) -> AgentError:
        """An HTTP error status, or an in-stream error event (status 200) with its type."""
        effective = status
        typed = _TYPE_STATUS.get(error_type or "")
        if typed is not None and (status < 400 or typed == 529):
            effective = typed
        wait = retry_after if retry_after is not None else retry_after_seconds(headers)
        kind, retryable, message = self._describe(effective, self._clean(detail))
        return AgentError(kind, message, retryable=retryable, retry_after=wait, status=status)

    def timeout(self, seconds: float) -> AgentError:
        message = f"{self.provider} did not answer within {seconds:g}s"
        return AgentError(ErrorKind.TIMEOUT, message, retryable=True)

    def network(self, exc: BaseException) -> AgentError:
        reason = self._clean(str(exc) or type(exc).__name__)
        message = (
            f"cannot reach {self.provider} ({reason}); check the network and {self.base_url_var}"
        )
        return AgentError(ErrorKind.NETWORK, message, retryable=True)

    def malformed(self, detail: str) -> AgentError:
        message = f"{self.provider} sent a response tanka-bot cannot use: {self._clean(detail)}"
        return AgentError(ErrorKind.AGENT, message, retryable=True)

    def _describe(self, status: int, detail: str) -> tuple[ErrorKind, bool, str]:
        name, http = self.provider, f"HTTP {status}"
        if status == 529:
            return ErrorKind.RATE_LIMIT, True, f"{name} is overloaded ({detail}); try again soon"
        if status == 429:
            return ErrorKind.RATE_LIMIT, True, f"{name} rate limit reached ({http}): {detail}"
        if status in {408, 504}:
            return ErrorKind.TIMEOUT, True, f"{name} timed out ({http}): {detail}"
        if status >= 500 or status == 409 or status < 400:
            return ErrorKind.AGENT, True, f"{name} failed ({http}): {detail}"
        return ErrorKind.INVALID, False, self._rejected(status, detail)

    def _rejected(self, status: int, detail: str) -> str:
        name, http = self.provider, f"HTTP {status}"
        if status == 401:
            return f"{name} rejected the API key ({http}: {detail}); check {self.key_var}"
        if status == 402:
            return f"{name} refused for billing reasons ({http}: {detail}); check the account"
        if status == 403:
            return (
                f"{name} denied access ({http}: {detail}); check that the key in "
                f"{self.key_var} may use model {self.model!r}"
            )
        if status == 404:
            return (
                f"{name} does not know this model or endpoint ({http}: {detail}); check "
                f"TANKA_BOT_MODEL (now {self.model!r}) and {self.base_url_var}"
            )
        if status == 413:
            return f"{name} found the request too large ({http}: {detail}); start a new thread"
        return f"{name} rejected the request ({http}): {detail}"

    def _clean(self, text: str) -> str:
        text = " ".join(scrub_credentials(text, (self.secret,)).split())
        if len(text) > _DETAIL_LIMIT:
            text = text[:_DETAIL_LIMIT] + "..."
        return text or "no details"
