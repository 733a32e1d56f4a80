"""The guard store's roles (bot.store.guard_store), the same contract in memory and in a real
Redis: freezes and grants expire by the injected clock, spend counts atomically, a hold has one
holder whichever replica claims it, waiters are taken once."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from bot.store.guard_store import (
    FreezeRecord,
    Grant,
    GuardStore,
    HoldRecord,
    MemoryGuardStore,
    build_guard_store,
)
from bot.store.memory import MemoryStore
from bot.store.redis import RedisStore
from tests.redis_server import RedisServer
from tests.unit.store.conftest import FakeClock


@dataclass
class Guards:
    store: GuardStore
    clock: FakeClock
    replica: Callable[[], GuardStore]  # another replica's store on the same data


@pytest.fixture(params=["memory", "remote", "redis"])
def guards(request: pytest.FixtureRequest) -> Iterator[Guards]:
    clock = FakeClock()
    if request.param == "memory":
        store = MemoryGuardStore(clock=clock)
        yield Guards(store, clock, lambda: store)
        return
    if request.param == "remote":  # the serving process's, as its work process reaches it
        reach = request.getfixturevalue("hosted")(MemoryGuardStore(clock=clock))
        yield Guards(reach(), clock, reach)
        return
    server: RedisServer = request.getfixturevalue("shared_redis")
    prefix = f"test-{uuid.uuid4().hex[:8]}:"
    opened: list[RedisStore] = []

    def open_store() -> GuardStore:
        base = RedisStore(server.url, prefix=prefix)
        opened.append(base)
        return build_guard_store(base, prefix=prefix, clock=clock)

    yield Guards(open_store(), clock, open_store)
    for base in opened:
        base.close()


def test_memory_beside_a_memory_store() -> None:
    assert isinstance(build_guard_store(MemoryStore()), MemoryGuardStore)


def test_an_ad_hoc_freeze_is_seen_by_every_replica_until_it_ends(guards: Guards) -> None:
    now = guards.clock()
    guards.store.put_freeze(FreezeRecord("environments/prod*", "incident", "U0OPS", now, now + 60))
    other = guards.replica()
    assert [f.glob for f in other.freezes()] == ["environments/prod*"]
    guards.clock.advance(61)
    assert other.freezes() == []
    assert other.end_freezes("environments/prod*") == []


def test_unfreeze_ends_exactly_that_glob(guards: Guards) -> None:
    now = guards.clock()
    for glob in ("environments/prod*", "**"):
        guards.store.put_freeze(FreezeRecord(glob, "r", "U0OPS", now, now + 60))
    [ended] = guards.replica().end_freezes("**")
    assert ended.glob == "**"
    assert [f.glob for f in guards.store.freezes()] == ["environments/prod*"]


def test_grants_expire_by_the_clock(guards: Guards) -> None:
    now = guards.clock()
    guards.store.add_grant("C1:1.0", Grant("waiver", "main.deny_x", "ok", "U0P", now, now + 100))
    guards.store.add_grant("C1:1.0", Grant("override", "2.0", "go", "U0OPS", now, now + 10))
    assert [g.kind for g in guards.replica().grants("C1:1.0")] == ["waiver", "override"]
    assert guards.store.grants("C1:2.0") == []
    guards.clock.advance(11)
    assert [g.kind for g in guards.store.grants("C1:1.0")] == ["waiver"]
    guards.clock.advance(90)
    assert guards.store.grants("C1:1.0") == []


def test_spend_counts_every_add_from_every_replica(guards: Guards) -> None:
    stores = [guards.store, guards.replica()]

    def spend(store: GuardStore) -> None:
        for _ in range(50):
            store.add_spend("all:day:2026-11-29", 1_000, 3600)

    workers = [threading.Thread(target=spend, args=(s,)) for s in stores for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert guards.store.spend("all:day:2026-11-29") == 200 * 1_000
    assert guards.store.spend("all:day:2026-11-30") == 0


def test_once_per_name(guards: Guards) -> None:
    assert guards.store.once("warned:x", 3600)
    assert not guards.replica().once("warned:x", 3600)
    assert guards.store.once("warned:y", 3600)


def test_two_replicas_agree_on_a_hold(guards: Guards) -> None:
    now = guards.clock()
    mine = HoldRecord("environments/prod", "acme/infra", 1, "u1", "C1:1.0", now)
    theirs = HoldRecord("environments/prod", "acme/infra", 2, "u2", "C1:2.0", now)
    results: list[HoldRecord] = []
    racers = [
        threading.Thread(target=lambda s=s, r=r: results.append(s.claim(r)))
        for s, r in ((guards.store, mine), (guards.replica(), theirs))
    ]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    assert results[0] == results[1]  # both see the one holder
    holder = results[0]
    assert guards.replica().holds() == [holder]
    loser = 2 if holder.number == 1 else 1
    assert guards.store.release("acme/infra", loser) == []
    assert guards.store.release("acme/infra", holder.number) == [holder]
    assert guards.replica().holds() == []


def test_waiters_are_taken_once(guards: Guards) -> None:
    guards.store.wait_on("acme/infra", 1, "C1:2.0", 3600)
    guards.store.wait_on("acme/infra", 1, "C1:2.0", 3600)
    guards.replica().wait_on("acme/infra", 1, "C1:3.0", 3600)
    assert guards.store.take_waiters("acme/infra", 1) == ["C1:2.0", "C1:3.0"]
    assert guards.replica().take_waiters("acme/infra", 1) == []


def test_redis_down_is_store_unavailable(redis_server: RedisServer) -> None:
    from bot.store.base import StoreUnavailable  # noqa: PLC0415

    base = RedisStore(redis_server.url, prefix="down:")
    store = build_guard_store(base, prefix="down:", clock=time.time)
    redis_server.stop()
    try:
        with pytest.raises(StoreUnavailable):
            store.freezes()
        with pytest.raises(StoreUnavailable):
            store.add_spend("x", 1, 60)
    finally:
        base.close()
