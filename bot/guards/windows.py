"""Time windows: a fixed one (from, to) or a recurring one (starts by a cron expression in UTC
and lasts a duration). Pure: every function takes `now` as a Unix time.

The cron arithmetic is croniter's (a maintained library, and the one of the two common ones
that can step backwards): a recurring window is active at `now` when its latest start at or
before `now` is less than `duration` ago. The latest start is enough even when windows overlap
(a duration longer than the cron's period): a later start always ends later.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from croniter import croniter


@dataclass(frozen=True, slots=True)
class Window:
    start: float  # Unix time, inclusive
    end: float  # Unix time, exclusive

    def holds(self, now: float) -> bool:
        return self.start <= now < self.end


def cron_problem(expression: str) -> str | None:
    """Why `expression` is not a five-field cron expression, or None."""
    if len(expression.split()) != 5:
        return f"{expression!r} must have five fields (minute hour day month weekday), in UTC"
    if not croniter.is_valid(expression):
        return f"{expression!r} is not a valid cron expression"
    return None


def _utc(now: float) -> datetime:
    return datetime.fromtimestamp(now, UTC)


def latest_start(expression: str, now: float) -> float:
    """The latest time at or before `now` that the cron expression fires (UTC)."""
    # croniter's get_prev is strictly before its base, and its base is whole seconds: start a
    # second after `now` and step back past any start later than `now`.
    base = _utc(now).replace(microsecond=0) + timedelta(seconds=1)
    it = croniter(expression, base)
    start: datetime = it.get_prev(datetime)
    while start.timestamp() > now:
        start = it.get_prev(datetime)
    return start.timestamp()


def next_start(expression: str, now: float) -> float:
    """The first time strictly after `now` that the cron expression fires (UTC)."""
    it = croniter(expression, _utc(now).replace(microsecond=0))
    start: datetime = it.get_next(datetime)
    while start.timestamp() <= now:
        start = it.get_next(datetime)
    return start.timestamp()


def recurring_at(expression: str, duration: float, now: float) -> Window | None:
    """The recurring window active at `now`, or None."""
    start = latest_start(expression, now)
    window = Window(start, start + duration)
    return window if window.holds(now) else None


def iso(when: float) -> str:
    """`2026-11-30 08:00 UTC`: how the bot writes a moment for people."""
    return _utc(when).strftime("%Y-%m-%d %H:%M UTC")
