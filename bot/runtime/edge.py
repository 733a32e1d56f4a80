"""The edge: what the listener does with a parsed request before Slack is acknowledged.

Triage (bot.runtime.triage) first, so what is not work costs nothing more; then the dedupe;
then the work queue (bot.runtime.admission), except a cancel, which must not wait behind the
very turns it stops and runs at once off the ack path. Notices go only to the thread of a
request that is work, and never on the ack path.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeGuard

from bot.domain.commands import is_cancel
from bot.domain.requests import Inbound, Mention, Reaction
from bot.runtime.admission import Admission, QueueFull
from bot.runtime.failures import STORE_DOWN
from bot.runtime.threads import BUSY, QUEUED, Threads
from bot.runtime.triage import Recent, Triaged, triage
from bot.store.base import StoreUnavailable

log = logging.getLogger(__name__)


def receive(
    threads: Threads, admission: Admission, recent: Recent, request: Inbound, *,
    first_time: Callable[[], bool], handle: Callable[[Inbound], None],
) -> None:  # fmt: skip
    """Admit `request` if it is work; `handle` runs it (a cancel, at once, off the ack path)."""
    svc = threads.svc
    verdict = triage(svc, request, recent)
    if verdict.work:
        try:
            if not first_time():
                svc.metrics.deduplicated.inc()
                return
            if _cancel(threads, request):
                admission.soon(lambda: handle(request))
                return
            waiting = admission.admit(request)
        except StoreUnavailable as exc:
            verdict = Triaged(verdict.key, "store_unavailable", str(exc))
        except QueueFull as exc:
            svc.metrics.dropped.labels("queue_full").inc()
            log.warning("request not taken: %s", exc)
            if verdict.key is not None:
                full = verdict.key
                admission.soon(lambda: threads.post(full, BUSY))
            return
        else:
            if waiting is not None and verdict.key is not None:
                key = verdict.key
                admission.if_still_waiting(waiting, lambda: threads.post(key, QUEUED))
            return
    svc.metrics.dropped.labels(verdict.dropped).inc()
    if verdict.store_down:
        svc.metrics.errors.labels("store").inc()
        log.warning("request not taken, the store is down: %s", verdict.store_down)
        text = STORE_DOWN.format(error=verdict.store_down)
        if verdict.key is not None:  # sure it is for the bot: say why nothing happens
            key = verdict.key
            admission.soon(lambda: threads.post(key, text))
        elif _on_bot_message(svc.bot_user_id, request):
            # An approve or cancel emoji on the bot's message, whose thread only the store
            # knows: the person who reacted hears why, in a message of their own.
            reaction = request
            admission.soon(lambda: threads.ephemeral(reaction.channel, reaction.user, text))
    elif isinstance(request, Mention):
        log.info("mention dropped: %s", verdict.dropped)


def _on_bot_message(bot_user_id: str, request: Inbound) -> TypeGuard[Reaction]:
    """An emoji added on one of the bot's messages, as Slack names the message's author."""
    return (
        isinstance(request, Reaction) and request.added
        and bool(bot_user_id) and request.item_user == bot_user_id
    )  # fmt: skip


def _cancel(threads: Threads, request: Inbound) -> bool:
    if isinstance(request, Reaction):
        return request.added and request.name == threads.svc.settings.cancel_emoji
    return is_cancel(request.text)
