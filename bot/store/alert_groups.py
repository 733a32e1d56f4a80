"""What the bot remembers of Alertmanager's alert groups, on the store's contract.

    groups = AlertGroups(store)
    with groups.deciding(group_key, owner) as held:   # one replica at a time decides for a group
        thread = groups.thread(group_key)              # the thread of its session, or None
        groups.bind(group_key, key, ttl)
        groups.firing(key, fingerprint, at=now)        # True: new in this session's thread
        groups.resolved(key, fingerprint, at=now)      # True: it was firing and now is not
    groups.admit(route, limit, now=now)                # the route's hourly session budget
    groups.note_due(route, now=now)                    # True once per route per hour
    groups.admit_note(key, limit, now=now)             # the thread's hourly note budget
    groups.held_note_due(key, now=now)                 # True once per thread per hour

Everything is built from the store's roles (bot.store.base: blobs, marked sets, dedupe
tokens, leases), so memory and Redis behave alike and several replicas share the same answers.
Group keys are Alertmanager's text (any length, any characters): stored names use their SHA-256.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from bot.domain.thread import ThreadKey
from bot.store.base import Blobs, Dedupe, Leases, MarkedSets

HOUR = 3600.0
DECIDE_TTL = 30.0  # seconds a replica may hold a group while it posts the root message
DECIDE_WAIT = 10.0


class AlertGroupStore(Blobs, MarkedSets, Dedupe, Leases, Protocol):
    """The store's roles alert groups are built from."""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


class AlertGroups:
    def __init__(self, store: AlertGroupStore, *, wait: float = DECIDE_WAIT) -> None:
        self._store = store
        self._wait = wait

    @contextmanager
    def deciding(self, group_key: str, owner: str) -> Iterator[bool]:
        """Hold the group while deciding what a notification does (True), so two replicas (or
        two Alertmanagers of an HA pair) never start two sessions for it; False when another
        holder kept it past the wait."""
        name = f"alert-group-lock:{_digest(group_key)}"
        deadline = time.monotonic() + self._wait
        while not (held := self._store.acquire(name, owner, DECIDE_TTL)):
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        try:
            yield held
        finally:
            if held:
                self._store.release(name, owner)

    def thread(self, group_key: str) -> ThreadKey | None:
        """The thread of the group's latest session (which may since have closed), or None."""
        raw = self._store.get_blob(f"alert-group:{_digest(group_key)}")
        if raw is None:
            return None
        try:
            return ThreadKey.parse(raw.decode())
        except (UnicodeDecodeError, ValueError):
            return None  # unreadable: the group starts afresh

    def bind(self, group_key: str, key: ThreadKey, ttl: float) -> None:
        """The group's sessions now run in `key` (for `ttl` seconds, renewed on each bind)."""
        self._store.put_blob(f"alert-group:{_digest(group_key)}", key.id.encode(), ttl)

    def firing(self, key: ThreadKey, fingerprint: str, *, at: float, ttl: float) -> bool:
        """Mark an alert firing in the session of `key`: True when it was not already."""
        return self._store.add_member(f"alert-firing:{key.id}", fingerprint, ttl, at=at)

    def resolved(self, key: ThreadKey, fingerprint: str, *, at: float, ttl: float) -> bool:
        """Mark an alert resolved in the session of `key`: True when it was firing there."""
        return self._store.remove_member(f"alert-firing:{key.id}", fingerprint, ttl, at=at)

    def admit(self, route: str, limit: int, *, now: float) -> bool:
        """Count a new session against the route's hour; False when the hour already had
        `limit`. Under a race the count errs towards refusing, never towards more sessions."""
        return self._within_hour(f"alert-rate:{route}", limit, now)

    def note_due(self, route: str, *, now: float) -> bool:
        """True once per route per clock hour: when to say in the channel that it is over."""
        return self._store.first_seen(f"alert-rate-note:{route}:{int(now // HOUR)}", 2 * HOUR)

    def admit_note(self, key: ThreadKey, limit: int, *, now: float) -> bool:
        """Count a note in the session thread of `key` against its hour, as `admit` counts
        sessions: False when the hour already had `limit`."""
        return self._within_hour(f"alert-notes:{key.id}", limit, now)

    def held_note_due(self, key: ThreadKey, *, now: float) -> bool:
        """True once per thread per clock hour: when to say in it that notes are held back."""
        return self._store.first_seen(f"alert-notes-held:{key.id}:{int(now // HOUR)}", 2 * HOUR)

    def _within_hour(self, name: str, limit: int, now: float) -> bool:
        # A marked set per clock hour, one member per admission; it outlives its hour by one.
        bucket = f"{name}:{int(now // HOUR)}"
        if len(self._store.members(bucket)) >= limit:
            return False  # not counted: the set stays as small as the budget
        self._store.add_member(bucket, uuid.uuid4().hex, 2 * HOUR, at=now)
        return len(self._store.members(bucket)) <= limit
