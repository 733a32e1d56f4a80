"""Provider failure classification: kinds, retry hints and messages without secrets."""

from __future__ import annotations

import email.utils

import pytest

from bot.agent.errors import ErrorKind
from bot.agent.providers.errors import ErrorMapper, retry_after_seconds

MAPPER = ErrorMapper("Anthropic", "claude-x", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "sk-1")


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"Retry-After": "2.5"}, 2.5),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after-ms": "x", "retry-after": "4"}, 4.0),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_headers(headers: dict[str, str] | None, expected: float | None) -> None:
    assert retry_after_seconds(headers) == expected


def test_retry_after_http_date() -> None:
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert retry_after_seconds({"retry-after": date}, now=1_000_000) == 30.0


@pytest.mark.parametrize(
    ("status", "error_type", "kind", "retryable"),
    [
        (429, "rate_limit_error", ErrorKind.RATE_LIMIT, True),
        (529, "overloaded_error", ErrorKind.RATE_LIMIT, True),
        (500, "overloaded_error", ErrorKind.RATE_LIMIT, True),
        (200, "overloaded_error", ErrorKind.RATE_LIMIT, True),
        (200, "api_error", ErrorKind.AGENT, True),
        (200, "invalid_request_error", ErrorKind.INVALID, False),
        (200, "something_new", ErrorKind.AGENT, True),
        (500, "api_error", ErrorKind.AGENT, True),
        (503, None, ErrorKind.AGENT, True),
        (408, None, ErrorKind.TIMEOUT, True),
        (400, "invalid_request_error", ErrorKind.INVALID, False),
        (401, "authentication_error", ErrorKind.INVALID, False),
        (403, "permission_error", ErrorKind.INVALID, False),
        (404, "not_found_error", ErrorKind.INVALID, False),
        (422, None, ErrorKind.INVALID, False),
    ],
)
def test_status_classification(
    status: int, error_type: str | None, kind: ErrorKind, retryable: bool
) -> None:
    error = MAPPER.status(status, "detail", error_type=error_type)
    assert (error.kind, error.retryable, error.status) == (kind, retryable, status)


@pytest.mark.parametrize(
    ("status", "hint"),
    [(401, "check ANTHROPIC_API_KEY"), (403, "ANTHROPIC_API_KEY"), (404, "TANKA_BOT_MODEL")],
)
def test_rejections_say_what_to_fix(status: int, hint: str) -> None:
    assert hint in MAPPER.status(status, "nope").message


def test_secret_is_scrubbed_and_detail_is_bounded() -> None:
    error = MAPPER.status(400, "bad key sk-1 " + "x" * 1000)
    assert "sk-1" not in error.message
    assert "<redacted>" in error.message
    assert len(error.message) < 400


def test_timeout_network_and_malformed() -> None:
    assert MAPPER.timeout(0.5).kind is ErrorKind.TIMEOUT
    network = MAPPER.network(ConnectionRefusedError("refused sk-1"))
    assert (network.kind, network.retryable) == (ErrorKind.NETWORK, True)
    assert "sk-1" not in network.message
    assert MAPPER.malformed("").message.endswith("no details")


def test_explicit_retry_after_wins_over_headers() -> None:
    error = MAPPER.status(429, "slow", headers={"retry-after": "9"}, retry_after=1.0)
    assert error.retry_after == 1.0
