"""Triage at the edge: is this request work for the bot? Decided before any worker, post or
Web API call, with one store round trip at most.

In a busy channel the bot receives every message and reaction. Only three kinds are work: a
mention; a reply in a thread that has a session; the approve or cancel emoji on a message the
bot posted (the store indexes the ts of each, by thread). Everything else is dropped and counted
by reason (`tanka_bot_events_dropped_total`): no post, no Web API call, no worker.

When the store cannot say (it is down), a mention is still known to be for the bot; a reply or
a reply only when this replica saw its thread as a session a moment ago (`Recent`), a reaction
only when the store's in-memory index knows the reacted message. Notices go only to such threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from bot.domain.requests import Mention, Reaction, ThreadReply
from bot.domain.thread import ThreadKey
from bot.services import Services
from bot.store.base import StoreUnavailable

RECENT = 10_000  # session threads remembered in memory, for when the store is down


@dataclass(frozen=True, slots=True)
class Triaged:
    key: ThreadKey | None  # the bot's thread this request is for; None when not known
    dropped: str = ""  # why it is not work ("" when it is)
    store_down: str = ""  # the store's error, when that is why it could not be admitted

    @property
    def work(self) -> bool:
        return not self.dropped


class Recent:
    """Session threads this replica has seen lately (bounded, oldest forgotten first)."""

    def __init__(self, size: int = RECENT) -> None:
        self._size = size
        self._keys: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, key: ThreadKey) -> None:
        with self._lock:
            self._keys[key.id] = None
            self._keys.move_to_end(key.id)
            while len(self._keys) > self._size:
                self._keys.popitem(last=False)

    def __contains__(self, key: ThreadKey) -> bool:
        with self._lock:
            return key.id in self._keys


def triage(svc: Services, request: Mention | ThreadReply | Reaction, recent: Recent) -> Triaged:
    if isinstance(request, Mention):
        recent.add(request.key)
        return Triaged(request.key)
    if isinstance(request, ThreadReply):
        return _reply(svc, request, recent)
    return _reaction(svc, request)


def _reply(svc: Services, reply: ThreadReply, recent: Recent) -> Triaged:
    try:
        session = svc.sessions.exists(reply.key)
    except StoreUnavailable as exc:
        known = reply.key if reply.key in recent else None
        return Triaged(known, "store_unavailable", str(exc))
    if not session:
        return Triaged(None, "reply_without_session")
    recent.add(reply.key)
    return Triaged(reply.key)


def _reaction(svc: Services, reaction: Reaction) -> Triaged:
    s = svc.settings
    if reaction.name not in (s.approve_emoji, s.cancel_emoji):
        return Triaged(None, "reaction_other_emoji")
    if not reaction.added and reaction.name != s.approve_emoji:
        return Triaged(None, "reaction_removed")  # only a removed approval means something
    if reaction.item_user and svc.bot_user_id and reaction.item_user != svc.bot_user_id:
        # Slack names the reacted message's author: a person's message is never the bot's, so
        # the index need not be asked (a round trip each, in a busy channel).
        return Triaged(None, "reaction_not_on_bot_message")
    try:
        key = svc.store.thread_of(reaction.channel, reaction.item_ts)
    except StoreUnavailable as exc:
        return Triaged(None, "store_unavailable", str(exc))
    if key is not None:
        return Triaged(key)
    # The bot's message, not indexed yet (a reaction within moments of the post) or any more:
    # the runner looks its thread up. Its thread is not known here, so no notice.
    on_bot = bool(svc.bot_user_id) and reaction.item_user == svc.bot_user_id
    return Triaged(None) if on_bot else Triaged(None, "reaction_not_on_bot_message")
