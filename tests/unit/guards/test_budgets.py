"""Budgets (bot.guards.budgets) over the memory guard store: spend per scope and UTC period,
the 80% warning once per period, a used-up budget naming its reset, an admin's raise for the
current period only."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.guards.budgets import charge, exhausted, raise_limit, usage
from bot.guards.config import Budget
from bot.store.guard_store import MemoryGuardStore

DAILY = Budget(("C0DEPLOY",), "day", 10.0)
MONTHLY = Budget(None, "month", 100.0)
NOON = datetime(2026, 1, 31, 12, tzinfo=UTC).timestamp()
NEXT_DAY = datetime(2026, 2, 1, 0, 0, 1, tzinfo=UTC).timestamp()


def test_spend_counts_in_every_covering_budget_and_warns_once_at_80_percent() -> None:
    store = MemoryGuardStore(clock=lambda: NOON)
    budgets = (DAILY, MONTHLY)
    assert charge(store, budgets, "C0DEPLOY", 7.99, NOON) == []
    [due] = charge(store, budgets, "C0DEPLOY", 0.02, NOON)  # 80.1% of the daily one
    assert due.budget == DAILY
    assert due.text() == (
        "daily budget of <#C0DEPLOY>: $8.01 of $10.00 (80%), resets 2026-02-01 00:00 UTC"
    )
    assert charge(store, budgets, "C0DEPLOY", 1.0, NOON) == []  # said once this period
    assert exhausted(store, budgets, "C0DEPLOY", NOON) is None
    assert charge(store, budgets, "C0OTHER", 5.0, NOON) == []  # only the monthly covers it
    assert usage(store, MONTHLY, NOON).spent == 14.01

    charge(store, budgets, "C0DEPLOY", 1.0, NOON)
    used = exhausted(store, budgets, "C0DEPLOY", NOON)
    assert used is not None
    assert used.budget == DAILY
    assert round(used.spent, 2) == 10.01
    # A new UTC day (and month): the daily budget starts again, so does the monthly one.
    assert exhausted(store, budgets, "C0DEPLOY", NEXT_DAY) is None
    assert usage(store, MONTHLY, NEXT_DAY).spent == 0


def test_a_raise_lasts_for_the_current_period() -> None:
    store = MemoryGuardStore(clock=lambda: NOON)
    charge(store, (DAILY,), "C0DEPLOY", 12.0, NOON)
    assert exhausted(store, (DAILY,), "C0DEPLOY", NOON) is not None
    raised = raise_limit(store, DAILY, 5.0, NOON)
    assert (raised.spent, raised.limit) == (12.0, 15.0)
    assert exhausted(store, (DAILY,), "C0DEPLOY", NOON) is None
    assert usage(store, DAILY, NEXT_DAY).limit == 10.0
