"""Budgets: model spend per channel scope and UTC period (day, month), counted in the guard
store in whole micro-dollars so every replica adds to the same counter atomically.

A turn is admitted while every budget covering its channel is under its limit (the settings'
amount plus what admins raised for the period); its cost is charged when it ends, so a running
turn always finishes, and the next one is refused. Crossing 80% is said once per budget and
period (`once` in the store).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.domain.prices import dollars
from bot.guards.config import Budget
from bot.guards.windows import iso
from bot.store.guard_store import MICROS, SpendRole

WARN_AT = 0.8
# A counter outlives its period by a little (a turn ending just after midnight is charged to
# the new period; the old counter is only read until then).
_KEEP = {"day": 2 * 86_400.0, "month": 33 * 86_400.0}


def period_id(period: str, now: float) -> str:
    moment = datetime.fromtimestamp(now, UTC)
    return moment.strftime("%Y-%m-%d" if period == "day" else "%Y-%m")


def resets_at(period: str, now: float) -> float:
    """The start of the next UTC day or month."""
    moment = datetime.fromtimestamp(now, UTC)
    if period == "day":
        start = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        return start.timestamp() + 86_400.0
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    return datetime(year, month, 1, tzinfo=UTC).timestamp()


def counter(budget: Budget, now: float) -> str:
    return f"{budget.scope}:{budget.period}:{period_id(budget.period, now)}"


@dataclass(frozen=True, slots=True)
class Usage:
    budget: Budget
    spent: float  # dollars this period
    limit: float  # dollars: the settings' amount plus what was raised this period
    resets: float  # Unix time

    @property
    def share(self) -> float:
        return self.spent / self.limit if self.limit > 0 else 1.0

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.limit

    def text(self) -> str:
        """`daily budget of <#C0DEPLOY1>: $16.20 of $20.00 (81%), resets 2026-11-30 00:00 UTC`."""
        return (
            f"{self.budget.name}: {dollars(self.spent)} of {dollars(self.limit)} "
            f"({self.share:.0%}), resets {iso(self.resets)}"
        )


def usage(store: SpendRole, budget: Budget, now: float) -> Usage:
    name = counter(budget, now)
    raised = store.spend("raise:" + name) / MICROS
    return Usage(
        budget, store.spend(name) / MICROS, budget.limit_usd + raised, resets_at(budget.period, now)
    )


def covering(budgets: Sequence[Budget], channel: str) -> list[Budget]:
    return [b for b in budgets if b.covers(channel)]


def exhausted(
    store: SpendRole, budgets: Sequence[Budget], channel: str, now: float
) -> Usage | None:
    """The first budget covering `channel` that is used up, or None: a turn may start."""
    for budget in covering(budgets, channel):
        found = usage(store, budget, now)
        if found.exhausted:
            return found
    return None


def charge(
    store: SpendRole, budgets: Sequence[Budget], channel: str, usd: float, now: float
) -> list[Usage]:
    """Add a turn's cost to every budget covering `channel`; the budgets whose 80% warning is
    due now (crossed, and not yet said this period)."""
    due = []
    micros = round(usd * MICROS)
    for budget in covering(budgets, channel):
        name = counter(budget, now)
        if micros > 0:
            store.add_spend(name, micros, _KEEP[budget.period])
        found = usage(store, budget, now)
        if found.share >= WARN_AT and store.once("warned:" + name, _KEEP[budget.period]):
            due.append(found)
    return due


def raise_limit(store: SpendRole, budget: Budget, usd: float, now: float) -> Usage:
    """Raise `budget` by `usd` for the current period only."""
    store.add_spend("raise:" + counter(budget, now), round(usd * MICROS), _KEEP[budget.period])
    return usage(store, budget, now)
