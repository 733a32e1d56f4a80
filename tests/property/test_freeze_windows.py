"""Property tests of the freeze windows' arithmetic (bot.guards.windows) and the budgets'
periods (bot.guards.budgets), all in UTC: a recurring window's latest start is a cron firing at
or before now with no firing between it and now, across midnights, month ends and leap days;
a window holds exactly while less than its duration has passed since that start; the local
time zone changes nothing."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from croniter import croniter
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.guards.budgets import period_id, resets_at
from bot.guards.windows import latest_start, next_start, recurring_at

# 2020-01-01 .. 2036-01-01 (leap years 2020, 2024, 2028, 2032), to the microsecond.
MOMENTS = st.floats(min_value=1_577_836_800.0, max_value=2_082_758_400.0)
CRONS = st.sampled_from([
    "0 18 * * FRI",  # the weekend freeze
    "30 23 * * *",  # across midnight
    "0 0 1 * *",  # a month's start
    "0 12 31 * *",  # only months with 31 days
    "0 6 29 2 *",  # leap days only
    "*/15 9-17 * * MON-FRI",
    "59 23 L * *",  # a month's last minute
    "0 0 * * SUN",
])  # fmt: skip
DURATIONS = st.floats(min_value=60.0, max_value=40 * 86_400.0)


def fires(expression: str, when: float) -> bool:
    return bool(croniter.match(expression, datetime.fromtimestamp(when, UTC)))


@settings(max_examples=300, deadline=None)
@given(CRONS, MOMENTS)
def test_the_latest_start_fires_and_nothing_fires_after_it(expression: str, now: float) -> None:
    start = latest_start(expression, now)
    assert start <= now
    assert fires(expression, start)
    assert next_start(expression, start) > now  # no firing in (start, now]
    assert next_start(expression, now) > now


@settings(max_examples=300, deadline=None)
@given(CRONS, MOMENTS, DURATIONS)
def test_a_window_holds_while_less_than_its_duration_passed(
    expression: str, now: float, duration: float
) -> None:
    window = recurring_at(expression, duration, now)
    start = latest_start(expression, now)
    # Against the end the window states: `now - start < duration` differs where start + duration
    # rounds to now (60.00000000000001 s after a start 1.5e9 s from the epoch is the start + 60).
    assert (window is not None) == (now < start + duration)
    if window is not None:
        assert window.start == start
        assert window.end == start + duration
        assert window.holds(now)
        assert not window.holds(window.end)


@settings(max_examples=200, deadline=None)
@given(MOMENTS)
def test_a_window_across_midnight(now: float) -> None:
    """23:30 for 2h: active from 23:30 to 01:30 the next day, whatever the date."""
    window = recurring_at("30 23 * * *", 7200.0, now)
    moment = datetime.fromtimestamp(now, UTC)
    minutes = moment.hour * 60 + moment.minute
    assert (window is not None) == (minutes >= 23 * 60 + 30 or minutes < 90)


@settings(max_examples=200, deadline=None)
@given(MOMENTS)
def test_month_ends(now: float) -> None:
    """The 31st fires only in months that have one; `L` is each month's last day."""
    start = datetime.fromtimestamp(latest_start("0 12 31 * *", now), UTC)
    assert start.day == 31
    last = datetime.fromtimestamp(latest_start("59 23 L * *", now), UTC)
    assert (last + timedelta(minutes=1)).day == 1


@settings(max_examples=200, deadline=None)
@given(MOMENTS, st.sampled_from(["day", "month"]))
def test_a_budget_period_resets_at_the_next_utc_day_or_month(now: float, period: str) -> None:
    reset = resets_at(period, now)
    assert reset > now
    assert period_id(period, reset - 0.001) == period_id(period, now)
    assert period_id(period, reset) != period_id(period, now)
    moment = datetime.fromtimestamp(reset, UTC)
    assert (moment.hour, moment.minute, moment.second) == (0, 0, 0)
    if period == "month":
        assert moment.day == 1


@pytest.fixture
def far_time_zone() -> Iterator[None]:
    """The process's local time zone far from UTC, with summer time (DST changes nothing)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "America/Santiago"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def test_the_local_time_zone_changes_nothing(far_time_zone: None) -> None:
    # 2026-04-05: Chile leaves summer time that night; the UTC window does not move.
    now = datetime(2026, 4, 4, 23, 30, tzinfo=UTC).timestamp()
    assert latest_start("0 18 * * FRI", now) == datetime(2026, 4, 3, 18, tzinfo=UTC).timestamp()
    window = recurring_at("0 18 * * FRI", 62 * 3600.0, now)
    assert window is not None
    assert window.end == datetime(2026, 4, 6, 8, tzinfo=UTC).timestamp()
