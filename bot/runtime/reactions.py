"""An emoji on a thread's message: the approve emoji (added: approve; removed: withdraw) or the
cancel emoji."""

from __future__ import annotations

import logging

from bot.domain.requests import Reaction
from bot.domain.thread import ThreadKey
from bot.handlers import guard_stale, steer
from bot.handlers.approve import approve, withdraw
from bot.runtime.failures import STORE_DOWN
from bot.runtime.threads import Threads
from bot.store.base import StoreUnavailable

log = logging.getLogger(__name__)


def handle(threads: Threads, reaction: Reaction) -> None:
    s = threads.svc.settings
    if reaction.name not in (s.approve_emoji, s.cancel_emoji):
        return
    if not reaction.added and reaction.name != s.approve_emoji:
        return  # a removed approve reaction withdraws the approval (teams)
    try:
        key = threads.thread_of(reaction.channel, reaction.item_ts)
    except StoreUnavailable as exc:
        log.warning("reaction ignored, the store is down: %s", exc)
        threads.post_to_message(reaction, STORE_DOWN.format(error=exc))
        return
    if key is None:
        return  # not a message of one of our threads
    if reaction.name == s.cancel_emoji:
        if steer.refuse_user(threads.svc, key.channel, key.thread_ts, reaction.user, "cancel"):
            return
        threads.cancel(key, reaction.user)
    else:
        threads.submit(key, lambda: _approve(threads, key, reaction))


def _approve(threads: Threads, key: ThreadKey, reaction: Reaction) -> None:
    svc = threads.channels(key.channel) or threads.svc
    if not reaction.added:
        # A withdrawal only takes the approval out of the store's set: it needs no lease, so
        # it is never lost to a running turn. The session is read, not written.
        stored = svc.sessions.get(key)
        if stored is not None:
            masked, mask = threads.masked(svc, key, stored)
            withdraw(masked, stored, reaction, mask.apply)
        return
    busy = (
        f"<@{reaction.user}> a turn is running in this thread; approve again when it "
        "has finished and the proposal is final."
    )

    def work() -> None:
        session = svc.sessions.get(key)
        if session is None:
            threads.post(key, "This session has expired; mention me to start a new one.")
            return
        masked, mask = threads.masked(svc, key, session)
        approve(masked, session, reaction, mask.apply, renew=lambda record, move:
                guard_stale.repropose(masked, session, record, move, user=reaction.user,
                                      mask=mask))  # fmt: skip
        session.updated = svc.clock()
        masked.sessions.put(session)

    if not threads.holding(svc, key, work):
        svc.metrics.approvals.labels("refused").inc()
        threads.post(key, busy)
