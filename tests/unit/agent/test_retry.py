"""Retries: backoff with full jitter, retry-after honoured and capped, deadline respected."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.agent.budget import Budgets
from bot.agent.errors import AgentError, ErrorKind
from bot.agent.events import RetryEvent
from bot.agent.messages import ModelRequest, ModelResponse
from bot.agent.retry import RetryPolicy
from fakes.scripted_provider import ScriptedProvider, overloaded, reply
from tests.unit.agent.helpers import FakeClock, Recorder, RecordingSleep, context, make_agent


def test_retry_after_is_honoured(tmp_path: Path) -> None:
    clock = FakeClock()
    sleep = RecordingSleep(clock)
    provider = ScriptedProvider([overloaded(2.5), overloaded(0.25), reply("finally")])
    recorder = Recorder()
    result = make_agent(provider, clock=clock, sleep=sleep).run_turn(
        [], "go", context(tmp_path), observer=recorder
    )

    assert result.ok
    assert result.text == "finally"
    assert sleep.durations == [2.5, 0.25]
    assert [(e.attempt, e.delay) for e in recorder.of(RetryEvent)] == [(1, 2.5), (2, 0.25)]
    assert result.steps == 1
    assert len(provider.requests) == 3


def test_retry_after_is_capped(tmp_path: Path) -> None:
    clock = FakeClock()
    sleep = RecordingSleep(clock)
    provider = ScriptedProvider([overloaded(3600), reply("ok")])
    make_agent(provider, clock=clock, sleep=sleep, budgets=Budgets(turn_timeout=7200)).run_turn(
        [], "go", context(tmp_path)
    )
    assert sleep.durations == [RetryPolicy().max_retry_after]


def test_backoff_is_full_jitter_under_an_exponential_ceiling(tmp_path: Path) -> None:
    clock = FakeClock()
    sleep = RecordingSleep(clock)
    provider = ScriptedProvider([overloaded(), overloaded(), overloaded(), reply("ok")])
    policy = RetryPolicy(max_attempts=4, base_delay=2.0, max_delay=5.0)
    result = make_agent(provider, clock=clock, sleep=sleep, retry=policy).run_turn(
        [], "go", context(tmp_path)
    )
    assert result.ok
    ceilings = [2.0, 4.0, 5.0]
    assert len(sleep.durations) == 3
    for slept, ceiling in zip(sleep.durations, ceilings, strict=True):
        assert 0.0 <= slept <= ceiling


def test_policy_delay_is_deterministic_with_a_seeded_rng() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    error = AgentError(ErrorKind.NETWORK, "reset", retryable=True)
    first = [policy.delay(n, error, random.Random(3)) for n in range(1, 6)]  # noqa: S311
    again = [policy.delay(n, error, random.Random(3)) for n in range(1, 6)]  # noqa: S311
    assert first == again
    assert all(0 <= d <= min(8.0, 2 ** (n - 1)) for n, d in enumerate(first, start=1))


def test_gives_up_after_max_attempts(tmp_path: Path) -> None:
    provider = ScriptedProvider([overloaded(0.1)] * 5)
    result = make_agent(provider, retry=RetryPolicy(max_attempts=3)).run_turn(
        [], "go", context(tmp_path)
    )
    assert result.error is not None
    assert result.error.kind is ErrorKind.RATE_LIMIT
    assert "gave up after 3 attempts" in str(result.error)
    assert len(provider.requests) == 3


def test_errors_that_are_not_retryable_fail_at_once(tmp_path: Path) -> None:
    bad_key = AgentError(
        ErrorKind.INVALID, "invalid x-api-key; check ANTHROPIC_API_KEY", status=401
    )
    provider = ScriptedProvider([bad_key, reply("never")])
    result = make_agent(provider).run_turn([], "go", context(tmp_path))
    assert result.error is bad_key
    assert len(provider.requests) == 1


def test_a_wait_past_the_deadline_is_not_attempted(tmp_path: Path) -> None:
    clock = FakeClock()
    sleep = RecordingSleep(clock)
    provider = ScriptedProvider([overloaded(30), reply("never")])
    result = make_agent(
        provider, clock=clock, sleep=sleep, budgets=Budgets(turn_timeout=10)
    ).run_turn([], "go", context(tmp_path))
    assert result.error is not None
    assert result.error.kind is ErrorKind.RATE_LIMIT
    assert "would pass the turn deadline" in str(result.error)
    assert sleep.durations == []


def test_a_provider_bug_becomes_an_agent_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(request: ModelRequest) -> ModelResponse:
        raise KeyError("choices")

    provider = ScriptedProvider([broken, reply("never")])
    result = make_agent(provider).run_turn([], "go", context(tmp_path))
    assert result.error is not None
    assert result.error.kind is ErrorKind.AGENT
    assert "failed unexpectedly (KeyError)" in str(result.error)
    assert len(provider.requests) == 1
