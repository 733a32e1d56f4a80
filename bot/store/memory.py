"""The in-memory store: one process, one replica, nothing survives a restart.

Every method takes one lock, so each operation is atomic with respect to the others, which is
what the contract's atomic operations (first_seen, acquire, drain_pending) need. Time comes from
an injectable clock so expiry can be tested without sleeping.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from bot.domain.thread import ThreadKey
from bot.store.base import mark_time, ttl_millis
from bot.store.expiring import ExpiringDict

# Expired dedupe tokens and index entries are removed after this many writes: often enough to
# bound memory, rarely enough that the O(n) sweep costs nothing per event.
_SWEEP_EVERY = 1024


class MemoryStore:
    """`Store` in process memory; thread-safe."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[ThreadKey, tuple[str, float]] = {}
        self._pending: dict[ThreadKey, list[str]] = {}
        self._messages: ExpiringDict[tuple[str, str], ThreadKey] = ExpiringDict()
        self._seen: ExpiringDict[str, bool] = ExpiringDict()
        self._pulls: ExpiringDict[tuple[str, int], ThreadKey] = ExpiringDict()
        self._blobs: ExpiringDict[str, bytes] = ExpiringDict()
        # set name -> member -> (time of its latest mark, whether that mark added it)
        self._sets: ExpiringDict[str, dict[str, tuple[float, bool]]] = ExpiringDict()
        self._locks: ExpiringDict[str, str] = ExpiringDict()
        self._writes = 0
        self._by_requester: dict[str, dict[ThreadKey, float]] = {}
        self._awaiting: dict[ThreadKey, float] = {}
        self._cards: dict[ThreadKey, str] = {}
        self._work: list[str] = []
        self._taken: dict[str, list[str]] = {}
        self._work_added = threading.Condition(self._lock)

    # sessions

    def load(self, key: ThreadKey) -> str | None:
        with self._lock:
            entry = self._sessions.get(key)
        return None if entry is None else entry[0]

    def has_session(self, key: ThreadKey) -> bool:
        with self._lock:
            return key in self._sessions

    def save(self, key: ThreadKey, data: str, *, updated: float) -> None:
        with self._lock:
            self._sessions[key] = (data, float(updated))

    def delete(self, key: ThreadKey) -> None:
        with self._lock:
            self._sessions.pop(key, None)
            self._pending.pop(key, None)
            self._awaiting.pop(key, None)
            self._cards.pop(key, None)
            for keys in self._by_requester.values():
                keys.pop(key, None)

    def index_session(
        self, key: ThreadKey, card: str, *, requester: str, awaiting: bool, updated: float
    ) -> None:
        with self._lock:
            self._cards[key] = card
            self._by_requester.setdefault(requester, {})[key] = float(updated)
            if awaiting:
                self._awaiting[key] = float(updated)
            else:
                self._awaiting.pop(key, None)

    def sessions_by(self, requester: str, limit: int) -> list[str]:
        with self._lock:
            return self._newest(self._by_requester.get(requester, {}), limit)

    def awaiting(self, limit: int) -> list[str]:
        with self._lock:
            return self._newest(self._awaiting, limit)

    def _newest(self, index: dict[ThreadKey, float], limit: int) -> list[str]:
        ordered = sorted(index.items(), key=lambda item: (item[1], item[0].id), reverse=True)
        found = (self._cards.get(key) for key, _ in ordered)
        return [card for card in found if card is not None][: max(limit, 0)]

    def sessions(self, channel: str | None = None) -> list[tuple[ThreadKey, float]]:
        with self._lock:
            found = [
                (key, updated)
                for key, (_, updated) in self._sessions.items()
                if channel is None or key.channel == channel
            ]
        return sorted(found, key=lambda item: (item[1], item[0].id))

    # message index and dedupe

    def index_message(self, channel: str, ts: str, key: ThreadKey, ttl: float) -> None:
        deadline = self._deadline(ttl)
        with self._lock:
            self._messages.set((channel, ts), key, deadline)
            self._wrote()

    def thread_of(self, channel: str, ts: str) -> ThreadKey | None:
        with self._lock:
            return self._messages.get((channel, ts), self._clock())

    def link_pull_request(self, repo: str, number: int, key: ThreadKey, ttl: float) -> None:
        deadline = self._deadline(ttl)
        with self._lock:
            self._pulls.set((repo, number), key, deadline)
            self._wrote()

    def thread_of_pull_request(self, repo: str, number: int) -> ThreadKey | None:
        with self._lock:
            return self._pulls.get((repo, number), self._clock())

    def first_seen_all(self, tokens: Sequence[str], ttl: float) -> bool:
        return all(self.first_seen(token, ttl) for token in tokens)  # stops at the first repeat

    def first_seen(self, token: str, ttl: float) -> bool:
        deadline = self._deadline(ttl)
        with self._lock:
            if self._seen.get(token, self._clock()):
                return False
            self._seen.set(token, True, deadline)
            self._wrote()
            return True

    # pending messages

    def push_pending(self, key: ThreadKey, item: str) -> None:
        with self._lock:
            self._pending.setdefault(key, []).append(item)

    def has_pending(self, key: ThreadKey) -> bool:
        with self._lock:
            return bool(self._pending.get(key))

    def drain_pending(self, key: ThreadKey) -> list[str]:
        with self._lock:
            return self._pending.pop(key, [])

    # the work queue

    def put_work(self, item: str, limit: int | None = None) -> int:
        with self._lock:
            if limit is not None and len(self._work) >= limit:
                return 0
            self._work.append(item)
            self._work_added.notify()
            return len(self._work)

    def work_waiting(self, item: str) -> bool:
        with self._lock:
            return item in self._work

    def take_work(self, owner: str, timeout: float) -> str | None:
        with self._lock:
            taken = self._taken.setdefault(owner, [])
            if not self._work_added.wait_for(lambda: bool(self._work), timeout):
                return None
            item = self._work.pop(0)
            taken.append(item)
            return item

    def done_work(self, owner: str, item: str) -> None:
        with self._lock:
            taken = self._taken.get(owner, [])
            if item in taken:
                taken.remove(item)

    def return_work(self, owner: str) -> int:
        with self._lock:
            taken = self._taken.pop(owner, [])
            self._work[:0] = taken
            if taken:
                self._work_added.notify(len(taken))
            return len(taken)

    def work_owners(self) -> list[str]:
        with self._lock:
            return sorted(self._taken)

    # sets

    def add_member(self, name: str, member: str, ttl: float, *, at: float) -> bool:
        return self._mark(name, member, ttl, at=at, present=True)

    def remove_member(self, name: str, member: str, ttl: float, *, at: float) -> bool:
        return self._mark(name, member, ttl, at=at, present=False)

    def _mark(self, name: str, member: str, ttl: float, *, at: float, present: bool) -> bool:
        """The latest mark wins; a tie goes to the removal (as in the Redis script)."""
        deadline, at = self._deadline(ttl), mark_time(at)
        with self._lock:
            marks = self._sets.get(name, self._clock()) or {}
            last = marks.get(member)
            if last is not None and (at < last[0] or (at == last[0] and present)):
                return False
            was = last is not None and last[1]
            if present and not was:
                marks.pop(member, None)  # a member added again goes last
            marks[member] = (at, present)
            self._sets.set(name, marks, deadline)
            self._wrote()
            return was != present

    def members(self, name: str) -> list[str]:
        with self._lock:
            marks = self._sets.get(name, self._clock()) or {}
            return [member for member, (_, present) in marks.items() if present]

    # blobs

    def put_blob(self, name: str, data: bytes, ttl: float | None) -> None:
        deadline = None if ttl is None else self._deadline(ttl)
        with self._lock:
            self._blobs.set(name, bytes(data), deadline)
            self._wrote()

    def get_blob(self, name: str) -> bytes | None:
        with self._lock:
            return self._blobs.get(name, self._clock())

    def delete_blob(self, name: str) -> None:
        with self._lock:
            self._blobs.pop(name)

    def ping(self) -> None:
        """Memory is always reachable."""

    def close(self) -> None:
        """Nothing to release."""

    # locks

    def acquire(self, name: str, owner: str, ttl: float) -> bool:
        deadline = self._deadline(ttl)
        with self._lock:
            current = self._locks.get(name, self._clock())
            if current is not None and current != owner:
                return False
            self._locks.set(name, owner, deadline)
            return True

    def renew(self, name: str, owner: str, ttl: float) -> bool:
        return self.take_over(name, owner, owner, ttl)  # the holder taking it from itself

    def release(self, name: str, owner: str) -> bool:
        with self._lock:
            if self._locks.get(name, self._clock()) != owner:
                return False
            self._locks.pop(name)
            return True

    def holder(self, name: str) -> str | None:
        with self._lock:
            return self._locks.get(name, self._clock())

    def take_over(self, name: str, previous: str, owner: str, ttl: float) -> bool:
        deadline = self._deadline(ttl)
        with self._lock:
            if self._locks.get(name, self._clock()) != previous:
                return False
            self._locks.set(name, owner, deadline)
            return True

    # helpers

    def _deadline(self, ttl: float) -> float:
        """The expiry time for `ttl`, validated and rounded exactly as the Redis store does."""
        return self._clock() + ttl_millis(ttl) / 1000

    def _wrote(self) -> None:
        """Count a write to an expiring map; sweep them all now and then. Caller holds the lock."""
        self._writes += 1
        if self._writes % _SWEEP_EVERY == 0:
            now = self._clock()
            for expiring in (self._messages, self._seen, self._pulls, self._blobs, self._locks,
                             self._sets):  # fmt: skip
                expiring.sweep(now)
