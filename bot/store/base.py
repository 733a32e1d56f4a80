"""The store contract: what the service keeps between events, whichever backend holds it.

One protocol per role, and one error, `StoreUnavailable`:

    SessionRecords   load, has_session, save, delete, sessions       a thread's session (JSON)
    SessionCards     index_session, sessions_by, awaiting            the Home tab's index
    ThreadIndex      index_message, thread_of, link_pull_request,    a message or a PR -> its
                     thread_of_pull_request                          thread
    Dedupe           first_seen, first_seen_all                      an event handled once
    PendingMessages  push_pending, has_pending, drain_pending        a thread's next turn's input
    WorkQueue        put_work, work_waiting, take_work, done_work,   the durable work queue
                     return_work, work_owners                        (bot.runtime.admission)
    MarkedSets       add_member, remove_member, members              latest-mark-wins sets
    Blobs            put_blob, get_blob, delete_blob                 bytes by name (patches)
    Leases           acquire, renew, release, holder, take_over      lease locks with owners
    Health           ping                                            /readyz

`Store` is every role plus `close`: what `build_store` returns and the composition root holds.
A caller's type names the roles it uses (`Workspaces` takes `Blobs`, the GitHub receiver
`Dedupe`), so its needs read from its signature and a test double implements only those.

A new role (the web view's history, the guardrails' holds, freezes and budgets) is a protocol
of its own in a module of its own beside this one (bot/store/history.py: `class
History(Protocol)`), implemented by `MemoryStore` and `RedisStore`, added to `Store`'s bases,
and covered by the contract tests (tests/unit/store/) for both backends. Its callers type their
store by it. The backends take their clock (`clock=`) for every expiry and deadline.

Every implementation passes the same contract tests, so code written against these protocols
behaves the same with one replica in memory and with several replicas sharing Redis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from bot.domain.thread import ThreadKey
from bot.errors import ServiceUnavailable


class StoreUnavailable(ServiceUnavailable):
    """The backend cannot be reached or used right now.

    The message names the backend and its address, never a password. Callers treat it as
    transient: report it (readiness, a reply in the thread) and try again later; the store
    object itself recovers once the backend is back.
    """

    dependency = "store"


def ttl_millis(ttl: float) -> int:
    """`ttl` seconds as whole milliseconds, at least 1; ValueError unless a positive number.

    Both backends validate TTLs the same way so a bad value fails in tests with either.
    """
    if isinstance(ttl, bool) or not (
        isinstance(ttl, int | float) and math.isfinite(ttl) and ttl > 0
    ):
        raise ValueError(f"ttl must be a positive number of seconds, got {ttl!r}")
    return max(1, math.ceil(ttl * 1000))


def mark_time(at: float) -> float:
    """`at` (an event's unix time) as a float; ValueError unless a finite number.

    Both backends validate set marks the same way, so a bad time fails in tests with either.
    """
    if isinstance(at, bool) or not (isinstance(at, int | float) and math.isfinite(at)):
        raise ValueError(f"a mark's time must be a finite unix time, got {at!r}")
    return float(at)


class SessionRecords(Protocol):
    """Per-thread sessions as opaque JSON text: serialising them belongs to whoever owns the
    session model (bot.store.sessions)."""

    def load(self, key: ThreadKey) -> str | None:
        """The session saved for `key`, or None."""
        ...

    def has_session(self, key: ThreadKey) -> bool:
        """Whether a session is saved for `key`, without reading it (triage asks this of every
        reply in a thread; a session's record holds its whole conversation)."""
        ...

    def save(self, key: ThreadKey, data: str, *, updated: float) -> None:
        """Store (replace) the session; `updated` is the unix time of its last activity."""
        ...

    def delete(self, key: ThreadKey) -> None:
        """Forget the session and its pending messages. Deleting a missing session is a no-op."""
        ...

    def sessions(self, channel: str | None = None) -> list[tuple[ThreadKey, float]]:
        """Every stored session with its `updated`, oldest first (ties by key id).

        With `channel`, only that channel's sessions.
        """
        ...


class SessionCards(Protocol):
    """The Home tab's index of sessions: a small card per session, by requester and by whether it
    awaits an approval. `SessionRecords.delete` forgets a session's card too."""

    def index_session(
        self, key: ThreadKey, card: str, *, requester: str, awaiting: bool, updated: float
    ) -> None:
        """Index the session for the Home tab: its `card` (a small JSON summary, replaced on
        every call) under its requester by `updated`, and among the sessions whose latest
        proposal awaits an approval when `awaiting`. `delete` forgets them."""
        ...

    def sessions_by(self, requester: str, limit: int) -> list[str]:
        """The cards of the sessions `requester` started, newest first, at most `limit`: one
        query."""
        ...

    def awaiting(self, limit: int) -> list[str]:
        """The cards of the sessions whose latest proposal awaits an approval, newest first, at
        most `limit`: one query."""
        ...


class ThreadIndex(Protocol):
    """Which thread a Slack message or a pull request belongs to."""

    def index_message(self, channel: str, ts: str, key: ThreadKey, ttl: float) -> None:
        """Remember for `ttl` seconds that message `ts` in `channel` belongs to thread `key`.

        Reactions arrive with the reacted message's ts only; this maps it back to its thread.
        """
        ...

    def thread_of(self, channel: str, ts: str) -> ThreadKey | None:
        """The thread indexed for this message, or None (never indexed, or expired)."""
        ...

    def link_pull_request(self, repo: str, number: int, key: ThreadKey, ttl: float) -> None:
        """Remember for `ttl` seconds that pull request `number` of `repo` belongs to thread `key`.

        GitHub's webhooks name the pull request only; this maps them back to the thread that
        opened it. `repo` is compared exactly: callers pass one spelling (lower case).
        """
        ...

    def thread_of_pull_request(self, repo: str, number: int) -> ThreadKey | None:
        """The thread linked to the pull request, or None (never linked, or expired)."""
        ...


class Dedupe(Protocol):
    """Tokens seen once: repeated deliveries of an event are dropped."""

    def first_seen(self, token: str, ttl: float) -> bool:
        """True exactly once per `token` within `ttl` seconds, across every user of the store.

        Atomic: of any number of concurrent callers, one gets True. Used to drop repeated
        deliveries of the same event.
        """
        ...

    def first_seen_all(self, tokens: Sequence[str], ttl: float) -> bool:
        """`first_seen` of each token in order, in one step (one round trip): True when every
        one is new; the tokens after the first repeat are left unmarked."""
        ...


class PendingMessages(Protocol):
    """Each thread's messages that arrived while a turn ran, for its next turn."""

    def push_pending(self, key: ThreadKey, item: str) -> None:
        """Queue `item` for the thread's next turn."""
        ...

    def has_pending(self, key: ThreadKey) -> bool:
        """Whether items wait in the thread's queue (without taking them)."""
        ...

    def drain_pending(self, key: ThreadKey) -> list[str]:
        """Take every queued item, oldest first, leaving the queue empty.

        Atomic: an item pushed concurrently is in this result or in the next one, never both,
        never neither.
        """
        ...


class WorkQueue(Protocol):
    """The shared, durable queue of acknowledged requests not yet done."""

    def put_work(self, item: str, limit: int | None = None) -> int:
        """Append `item` (unique text) to the shared work queue; the queue's length after it.

        The work queue holds requests acknowledged and not yet done (bot.runtime.admission):
        once this returns, the item survives the process that put it. With `limit`, a queue
        already that long takes nothing: 0 is returned (atomic, across replicas).
        """
        ...

    def work_waiting(self, item: str) -> bool:
        """Whether `item` is still on the queue, taken by no one yet."""
        ...

    def take_work(self, owner: str, timeout: float) -> str | None:
        """Move the oldest queued item to `owner`'s taken list and return it; None when the
        queue stayed empty for `timeout` seconds. Atomic: each item goes to one owner."""
        ...

    def done_work(self, owner: str, item: str) -> None:
        """Forget `item` from `owner`'s taken list: the work is done (or answered)."""
        ...

    def return_work(self, owner: str) -> int:
        """Put `owner`'s taken items back at the head of the queue, in their order, and forget
        `owner`; how many. For an owner that died holding work."""
        ...

    def work_owners(self) -> list[str]:
        """Every owner that took work and was not yet forgotten by `return_work`."""
        ...


class MarkedSets(Protocol):
    """Named sets whose latest mark per member wins, whatever order the marks arrive in."""

    def add_member(self, name: str, member: str, ttl: float, *, at: float) -> bool:
        """Mark `member` in the set `name` as of event time `at` (unix seconds); the set then
        expires `ttl` seconds after this write. True when it was not a member and now is.

        The latest mark per member wins whatever order marks arrive in: an add older than the
        member's latest mark changes nothing (False), and of an add and a removal with the same
        time the removal wins. Atomic: of concurrent adds of one member, one gets True.

        Approvals of a proposal live in such a set, so every replica counts the same ones, and
        a reaction removed after it was added never counts, however Slack delivered the two.
        """
        ...

    def remove_member(self, name: str, member: str, ttl: float, *, at: float) -> bool:
        """Mark `member` out of the set `name` as of event time `at`; True when it was a member
        and now is not. The mark is kept (until `ttl` after this write) so an older add that
        arrives later cannot put the member back."""
        ...

    def members(self, name: str) -> list[str]:
        """The set's members (latest mark an add) in the order they were added (empty when
        there is none); a member removed and added again goes last."""
        ...


class Blobs(Protocol):
    """Bytes by name, with an optional expiry (a session's saved patch)."""

    def put_blob(self, name: str, data: bytes, ttl: float | None) -> None:
        """Store bytes under `name` (replacing any), expiring after `ttl` seconds or never."""
        ...

    def get_blob(self, name: str) -> bytes | None:
        """The bytes stored under `name`, or None."""
        ...

    def delete_blob(self, name: str) -> None:
        """Forget `name`; a missing blob is a no-op."""
        ...


class Health(Protocol):
    """Whether the backend is usable (/readyz)."""

    def ping(self) -> None:
        """Return if the backend is usable; raise StoreUnavailable otherwise."""
        ...


class Leases(Protocol):
    """Lease locks: held by an owner token until released or until the lease expires.

    A holder that lives longer than its lease must `renew` it; a holder that crashed stops
    blocking others once its lease runs out.
    """

    def acquire(self, name: str, owner: str, ttl: float) -> bool:
        """Take the lock for `ttl` seconds; True when `owner` now holds it.

        False while another owner holds an unexpired lease. Idempotent for the same owner (its
        lease is reset to `ttl`), so a retried call never locks its own caller out.
        """
        ...

    def renew(self, name: str, owner: str, ttl: float) -> bool:
        """Extend `owner`'s lease to `ttl` seconds from now; False if `owner` no longer holds it."""
        ...

    def release(self, name: str, owner: str) -> bool:
        """Free the lock if `owner` holds it (True); never frees another owner's lock (False)."""
        ...

    def holder(self, name: str) -> str | None:
        """The owner holding an unexpired lease on `name`, or None."""
        ...

    def take_over(self, name: str, previous: str, owner: str, ttl: float) -> bool:
        """Give `owner` the lock for `ttl` seconds if `previous` still holds it (True).

        For a holder known to be dead before its lease runs out: compare-and-set, so two
        replicas taking over the same lease cannot both win.
        """
        ...


class Store(
    SessionRecords,
    SessionCards,
    ThreadIndex,
    Dedupe,
    PendingMessages,
    WorkQueue,
    MarkedSets,
    Blobs,
    Leases,
    Health,
    Protocol,
):
    """One backend serving every role, as `build_store` returns it."""

    def close(self) -> None:
        """Release connections; the store is not used afterwards."""
        ...
