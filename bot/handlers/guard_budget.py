"""Budgets around a turn (bot.guards.budgets): refused before any model call when a budget
covering the channel is used up; charged with the turn's cost when it ends (so a running turn
always finishes); the 80% warning said once per budget and period.

The cost is the session's tokens this turn priced by TANKA_BOT_PRICES for the provider's
model; a model without a price counts nothing (`/tanka budget` says so).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from bot.domain.prices import turn_cost
from bot.domain.sessions import Session, SessionCorrupt
from bot.guards import budgets
from bot.guards.people import admins_text
from bot.guards.windows import iso
from bot.services import Services
from bot.store.base import StoreUnavailable
from bot.store.sessions import load_conversation

log = logging.getLogger(__name__)


def admitted(svc: Services, session: Session) -> bool:
    """Whether a new turn may start; if not, the thread is told why, what lets it pass and who
    can do it. Fails closed: budgets that cannot be read refuse the turn."""
    key = session.key
    s = svc.settings
    if not budgets.covering(s.guards.budgets, key.channel):
        return True
    try:
        used = budgets.exhausted(svc.guards, s.guards.budgets, key.channel, svc.clock())
    except StoreUnavailable as exc:
        svc.metrics.guard_refusals.labels("budget").inc()
        _post(
            svc,
            session,
            f":warning: Not starting: the model budgets could not be checked "
            f"({exc}); reply again in a minute.",
        )
        return False
    if used is None:
        return True
    svc.metrics.guard_refusals.labels("budget").inc()
    svc.audit.record(
        key.channel,
        key.thread_ts,
        "",
        "budget_refused",
        {
            "budget": used.budget.name,
            "spent_usd": round(used.spent, 6),
            "limit_usd": used.limit,
            "resets": iso(used.resets),
        },
    )
    _post(
        svc,
        session,
        f":money_with_wings: Not starting a turn: the {used.text()}. It can "
        f"go on after the reset, or now if {admins_text(s.teams.admins)} raises it with "
        "`/tanka budget raise USD`.",
    )
    return False


@contextmanager
def metered(svc: Services, session: Session) -> Iterator[None]:
    """Charge what the turn inside spends, even when it fails or is cancelled: the growth of
    the conversation's usage, cache reads and writes included (as the turn's token line
    prices them)."""
    before = _tokens(session)
    try:
        yield
    finally:
        after = _tokens(session)
        charge(svc, session, after[0] - before[0], after[1] - before[1])


def _tokens(session: Session) -> tuple[int, int]:
    """(input, output) tokens of the session's conversation so far; a record that cannot be
    read counts as the session's own totals."""
    try:
        usage = load_conversation(session).usage
    except SessionCorrupt:
        return session.input_tokens, session.output_tokens
    return (
        usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
        usage.output_tokens,
    )


def charge(svc: Services, session: Session, input_tokens: int, output_tokens: int) -> None:
    key = session.key
    s = svc.settings
    if not budgets.covering(s.guards.budgets, key.channel):
        return
    cost = turn_cost(s.price_table, s.model_id, input_tokens, output_tokens)
    if cost is None:
        log.warning(
            "budgets: model %s has no price in TANKA_BOT_PRICES; its spend is not counted",
            s.model_id,
        )
        return
    try:
        due = budgets.charge(svc.guards, s.guards.budgets, key.channel, cost, svc.clock())
    except StoreUnavailable as exc:  # the turn is over either way; its cost is lost
        log.warning("budgets: a turn's cost ($%.4f) was not counted: %s", cost, exc)
        return
    for used in due:
        svc.audit.record(
            key.channel,
            key.thread_ts,
            "",
            "budget_warning",
            {
                "budget": used.budget.name,
                "spent_usd": round(used.spent, 6),
                "limit_usd": used.limit,
                "resets": iso(used.resets),
            },
        )
        after = (
            "new turns are refused until it resets"
            if used.exhausted
            else "at 100% new turns are refused until it resets"
        )
        _post(
            svc,
            session,
            f":warning: Budget: the {used.text()}; {after}, unless "
            f"{admins_text(s.teams.admins)} raises it with `/tanka budget raise USD`.",
        )


def _post(svc: Services, session: Session, text: str) -> None:
    key = session.key
    ts = svc.chat.post(key.channel, text, thread_ts=key.thread_ts)
    svc.store.index_message(key.channel, ts, key, svc.settings.session_ttl)
