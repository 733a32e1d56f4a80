"""bot.runtime.lease with the in-memory store: exclusivity, release, cross-replica cancel, lost
leases.

The keeper polls every `POLL` seconds; tests shorten it and wait on the cancel token with a
timeout, never sleep and then assert.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from bot.domain.thread import ThreadKey
from bot.runtime.lease import (
    Lease,
    cancel_blob,
    dead_mark,
    lock_name,
    owner_lock,
    request_cancel,
)
from bot.store.base import StoreUnavailable
from bot.store.memory import MemoryStore

KEY = ThreadKey("C0DEPLOY1", "1700000000.000100")
OTHER = ThreadKey("C0DEPLOY1", "1700000000.000200")
POLL = 0.01
WAIT = 5.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def fast_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.runtime.lease.POLL", POLL)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(clock: Clock) -> MemoryStore:
    return MemoryStore(clock=clock)


@pytest.fixture
def leases() -> Iterator[list[Lease]]:
    made: list[Lease] = []
    yield made
    for lease in made:
        lease.release()


def lease(
    store: MemoryStore,
    leases: list[Lease],
    *,
    replica: str,
    key: ThreadKey = KEY,
    ttl: float = 60.0,
) -> Lease:
    made = Lease(store, key, ttl=ttl, replica=replica)
    leases.append(made)
    return made


def test_only_one_replica_holds_a_thread(store: MemoryStore, leases: list[Lease]) -> None:
    a, b = lease(store, leases, replica="a"), lease(store, leases, replica="b")
    assert a.acquire()
    assert not b.acquire()
    assert store.holder(lock_name(KEY)) == a.owner
    assert a.owner.startswith("a:")
    assert lease(store, leases, replica="b", key=OTHER).acquire()  # other threads are free


def test_two_leases_of_one_replica_are_distinct_owners(
    store: MemoryStore, leases: list[Lease]
) -> None:
    first, second = lease(store, leases, replica="a"), lease(store, leases, replica="a")
    assert first.owner != second.owner
    assert first.acquire()
    assert not second.acquire()


def test_release_lets_the_next_one_in(store: MemoryStore, leases: list[Lease]) -> None:
    a, b = lease(store, leases, replica="a"), lease(store, leases, replica="b")
    assert a.acquire()
    a.release()
    assert store.holder(lock_name(KEY)) is None
    assert b.acquire()
    a.release()  # releasing again never frees another owner's lease
    assert store.holder(lock_name(KEY)) == b.owner


def test_an_expired_lease_of_a_dead_replica_can_be_taken(
    store: MemoryStore, clock: Clock, leases: list[Lease]
) -> None:
    assert store.acquire(lock_name(KEY), "dead:1", 60.0)  # no keeper renews it
    b = lease(store, leases, replica="b")
    assert not b.acquire()
    clock.now += 61
    assert b.acquire()


def test_a_replica_declared_dead_loses_its_leases_at_once(
    store: MemoryStore, leases: list[Lease]
) -> None:
    a = lease(store, leases, replica="host-7-aa", ttl=1.0)  # renewed every third of a second
    b = lease(store, leases, replica="host-7-bb")
    assert a.acquire()
    assert not b.acquire()  # alive: its lease stands
    store.put_blob(dead_mark("host-7-aa"), b"1", 120.0)
    assert b.acquire()  # before a's TTL: taken over
    assert store.holder(lock_name(KEY)) == b.owner
    assert a.token.wait(WAIT)  # a's keeper finds the lease gone and stops its turn
    assert a.lost


def test_a_replica_declared_dead_that_came_back_keeps_its_leases(
    store: MemoryStore, leases: list[Lease]
) -> None:
    a, b = lease(store, leases, replica="host-7-aa"), lease(store, leases, replica="host-7-bb")
    assert a.acquire()
    store.put_blob(dead_mark("host-7-aa"), b"1", 120.0)  # its owner lease had run out
    assert store.acquire(owner_lock("host-7-aa"), "host-7-aa", 60.0)  # the store is back
    assert not b.acquire()
    assert store.holder(lock_name(KEY)) == a.owner


def test_a_replica_never_takes_over_its_own_leases(store: MemoryStore, leases: list[Lease]) -> None:
    first, second = lease(store, leases, replica="a"), lease(store, leases, replica="a")
    assert first.acquire()
    store.put_blob(dead_mark("a"), b"1", 120.0)
    assert not second.acquire()


def test_cancel_from_another_replica_cancels_the_token(
    store: MemoryStore, leases: list[Lease]
) -> None:
    running = lease(store, leases, replica="a")
    assert running.acquire()
    # Replica b gets the cancel reaction; the turn is not local to it.
    assert request_cancel(store, KEY, local=lambda _key: False) is True
    assert store.get_blob(cancel_blob(KEY)) is not None
    assert running.token.wait(WAIT)
    assert not running.lost


def test_local_cancel_needs_no_blob(store: MemoryStore) -> None:
    assert request_cancel(store, KEY, local=lambda key: key == KEY) is True
    assert store.get_blob(cancel_blob(KEY)) is None


def test_cancel_with_nothing_running(store: MemoryStore) -> None:
    assert request_cancel(store, KEY, local=lambda _key: False) is False
    assert store.get_blob(cancel_blob(KEY)) is None


def test_a_stale_cancel_does_not_cancel_the_next_turn(
    store: MemoryStore, leases: list[Lease]
) -> None:
    store.put_blob(cancel_blob(KEY), b"1", 600.0)  # left by a turn that ended before it was seen
    turn = lease(store, leases, replica="a")
    assert turn.acquire()
    assert store.get_blob(cancel_blob(KEY)) is None
    # A cancel for another thread does not touch this one either.
    assert lease(store, leases, replica="b", key=OTHER).acquire()
    assert request_cancel(store, OTHER, local=lambda _key: False)
    assert not turn.token.wait(POLL * 20)


def test_a_lost_lease_cancels_the_token(
    store: MemoryStore, clock: Clock, leases: list[Lease]
) -> None:
    turn = lease(store, leases, replica="a", ttl=POLL * 2)  # renewed on every poll
    assert turn.acquire()
    clock.now += 3600  # the store saw no renewal in time (a long GC pause, a partition)
    assert store.acquire(lock_name(KEY), "b:thief", 60.0)
    assert turn.token.wait(WAIT)
    assert "lease was lost" in turn.token.reason
    assert turn.lost
    turn.release()
    assert store.holder(lock_name(KEY)) == "b:thief"  # never frees the new holder's lease


class RenewSpy(MemoryStore):
    def __init__(self, clock: Clock) -> None:
        super().__init__(clock=clock)
        self.renewed = threading.Event()

    def renew(self, name: str, owner: str, ttl: float) -> bool:
        ok = super().renew(name, owner, ttl)
        if ok:
            self.renewed.set()
        return ok


def test_renewal_keeps_the_lease_past_its_ttl(clock: Clock, leases: list[Lease]) -> None:
    store = RenewSpy(clock)
    ttl = POLL * 2  # renewed on every poll
    turn = lease(store, leases, replica="a", ttl=ttl)
    assert turn.acquire()
    for _ in range(5):  # 4.5 TTLs in all, never more than 0.9 TTL after a renewal
        assert store.renewed.wait(WAIT)
        store.renewed.clear()
        clock.now += ttl * 0.9
    assert store.holder(lock_name(KEY)) == turn.owner
    assert not lease(store, leases, replica="b").acquire()
    assert not turn.lost
    assert not turn.token.is_set()


class FlakyStore(MemoryStore):
    def __init__(self, clock: Clock) -> None:
        super().__init__(clock=clock)
        self.down = False
        self.release_calls = 0

    def get_blob(self, name: str) -> bytes | None:
        if self.down:
            raise StoreUnavailable("redis at localhost:6379: connection refused")
        return super().get_blob(name)

    def release(self, name: str, owner: str) -> bool:
        self.release_calls += 1
        if self.down:
            raise StoreUnavailable("redis at localhost:6379: connection refused")
        return super().release(name, owner)


def test_store_outage_neither_cancels_nor_crashes(
    clock: Clock, leases: list[Lease], caplog: pytest.LogCaptureFixture
) -> None:
    store = FlakyStore(clock)
    turn = Lease(store, KEY, ttl=60.0, replica="a")
    assert turn.acquire()
    store.down = True
    assert not turn.token.wait(POLL * 10)
    turn.release()  # logs, does not raise
    assert store.release_calls == 1
    assert any("lease upkeep failed" in r.getMessage() for r in caplog.records)
    assert any("could not release" in r.getMessage() for r in caplog.records)
