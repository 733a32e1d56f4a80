"""What the guardrails keep (bot.guards): ad hoc freezes, a thread's overrides and waivers,
spend counters, and the holds of bot pull requests on environments with the threads waiting on
them. Each role is its own protocol; `GuardStore` is all of them, in memory or in Redis.

Kept apart from the session store's classes on purpose: these are roles of their own, and the
Redis one shares the session store's connection (and its outage handling) rather than opening
another. Every replica reads the same Redis, so a freeze, a waiver or a hold is the same
everywhere; the memory one serves a single replica (and the tests).

Time comes from a clock given at construction, so expiry is tested without sleeping. Spend is
counted in whole micro-dollars with INCRBY, so two replicas adding at once both count.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

from bot.store.base import Store, StoreUnavailable, ttl_millis
from bot.store.expiring import ExpiringDict

if TYPE_CHECKING:
    from bot.store.redis import RedisStore

MICROS: Final = 1_000_000  # micro-dollars per dollar


@dataclass(frozen=True, slots=True)
class FreezeRecord:
    """An ad hoc freeze (`/tanka freeze`): environments matching `glob` until `until`."""

    glob: str
    reason: str
    by: str
    start: float
    until: float


@dataclass(frozen=True, slots=True)
class Grant:
    """What a person allowed in a thread: an `override` of a freeze for one proposal (subject:
    its message ts) or a `waiver` of a policy rule (subject: the rule), until `until`."""

    kind: str  # "override" | "waiver"
    subject: str
    reason: str
    by: str
    at: float
    until: float


@dataclass(frozen=True, slots=True)
class HoldRecord:
    """An open bot pull request holding an environment."""

    env: str
    repo: str
    number: int
    url: str
    thread: str  # ThreadKey.id of the session that opened it
    at: float


class FreezeRole(Protocol):
    def put_freeze(self, record: FreezeRecord) -> None:
        """Freeze `record.glob` (replacing a freeze of the same glob)."""
        ...

    def end_freezes(self, glob: str) -> list[FreezeRecord]:
        """End the live freeze of exactly `glob`; the ended ones (none: nothing was frozen)."""
        ...

    def freezes(self) -> list[FreezeRecord]:
        """The live ad hoc freezes, by glob."""
        ...


class GrantRole(Protocol):
    def add_grant(self, thread: str, grant: Grant) -> None: ...

    def grants(self, thread: str) -> list[Grant]:
        """The thread's unexpired grants, oldest first."""
        ...


class SpendRole(Protocol):
    def add_spend(self, name: str, micros: int, ttl: float) -> int:
        """Add to the counter `name` (kept `ttl` seconds) and return its new total, atomically."""
        ...

    def spend(self, name: str) -> int: ...

    def once(self, name: str, ttl: float) -> bool:
        """True the first time `name` is asked within `ttl` seconds (a warning said once)."""
        ...


class HoldRole(Protocol):
    def claim(self, record: HoldRecord) -> HoldRecord:
        """Hold `record.env` unless held already: the holder after the call."""
        ...

    def holds(self) -> list[HoldRecord]: ...

    def release(self, repo: str, number: int) -> list[HoldRecord]:
        """Release every environment the pull request holds; the released holds."""
        ...

    def wait_on(self, repo: str, number: int, thread: str, ttl: float) -> None:
        """`thread` waits for the pull request to merge or close."""
        ...

    def take_waiters(self, repo: str, number: int) -> list[str]:
        """The threads waiting on the pull request, forgotten as they are returned (one
        replica takes each)."""
        ...


class GuardStore(FreezeRole, GrantRole, SpendRole, HoldRole, Protocol):
    pass


def _freeze(raw: Mapping[str, Any]) -> FreezeRecord:
    return FreezeRecord(
        str(raw["glob"]),
        str(raw["reason"]),
        str(raw["by"]),
        float(raw["start"]),
        float(raw["until"]),
    )


def _grant(raw: Mapping[str, Any]) -> Grant:
    return Grant(
        str(raw["kind"]),
        str(raw["subject"]),
        str(raw["reason"]),
        str(raw["by"]),
        float(raw["at"]),
        float(raw["until"]),
    )


def _hold(raw: Mapping[str, Any]) -> HoldRecord:
    return HoldRecord(
        str(raw["env"]),
        str(raw["repo"]),
        int(raw["number"]),
        str(raw["url"]),
        str(raw["thread"]),
        float(raw["at"]),
    )


def _json(value: object) -> str:
    return json.dumps(asdict(value), sort_keys=True)  # type: ignore[call-overload]


class MemoryGuardStore:
    """`GuardStore` in process memory; thread-safe."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._freezes: dict[str, FreezeRecord] = {}
        self._grants: dict[str, list[Grant]] = {}
        self._counters: ExpiringDict[str, int] = ExpiringDict()
        self._holds: dict[str, HoldRecord] = {}
        self._waiters: ExpiringDict[str, list[str]] = ExpiringDict()

    def put_freeze(self, record: FreezeRecord) -> None:
        with self._lock:
            self._freezes[record.glob] = record

    def end_freezes(self, glob: str) -> list[FreezeRecord]:
        now = self._clock()
        with self._lock:
            found = self._freezes.pop(glob, None)
        return [found] if found is not None and found.until > now else []

    def freezes(self) -> list[FreezeRecord]:
        now = self._clock()
        with self._lock:
            for glob in [g for g, f in self._freezes.items() if f.until <= now]:
                del self._freezes[glob]
            return sorted(self._freezes.values(), key=lambda f: f.glob)

    def add_grant(self, thread: str, grant: Grant) -> None:
        with self._lock:
            self._grants.setdefault(thread, []).append(grant)

    def grants(self, thread: str) -> list[Grant]:
        now = self._clock()
        with self._lock:
            live = [g for g in self._grants.get(thread, []) if g.until > now]
            self._grants[thread] = live
            return list(live)

    def add_spend(self, name: str, micros: int, ttl: float) -> int:
        deadline = self._clock() + ttl_millis(ttl) / 1000
        with self._lock:
            total = (self._counters.get(name, self._clock()) or 0) + int(micros)
            self._counters.set(name, total, deadline)
            return total

    def spend(self, name: str) -> int:
        with self._lock:
            return self._counters.get(name, self._clock()) or 0

    def once(self, name: str, ttl: float) -> bool:
        return self.add_spend("once:" + name, 1, ttl) == 1

    def claim(self, record: HoldRecord) -> HoldRecord:
        with self._lock:
            return self._holds.setdefault(record.env, record)

    def holds(self) -> list[HoldRecord]:
        with self._lock:
            return sorted(self._holds.values(), key=lambda h: h.env)

    def release(self, repo: str, number: int) -> list[HoldRecord]:
        with self._lock:
            gone = [h for h in self._holds.values() if (h.repo, h.number) == (repo, number)]
            for hold in gone:
                del self._holds[hold.env]
            return sorted(gone, key=lambda h: h.env)

    def wait_on(self, repo: str, number: int, thread: str, ttl: float) -> None:
        name = f"{repo}#{number}"
        now = self._clock()
        with self._lock:
            waiting = self._waiters.get(name, now) or []
            if thread not in waiting:
                waiting.append(thread)
            self._waiters.set(name, waiting, now + ttl_millis(ttl) / 1000)

    def take_waiters(self, repo: str, number: int) -> list[str]:
        name = f"{repo}#{number}"
        with self._lock:
            waiting = self._waiters.get(name, self._clock()) or []
            self._waiters.pop(name)
            return waiting


# Release the fields of KEYS[1] (env -> hold JSON) whose holder is ARGV[1] (repo#number),
# returning their JSON: two replicas releasing together release each hold once.
_RELEASE: Final = """
local out = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local hold = cjson.decode(all[i + 1])
  if hold['repo'] .. '#' .. tostring(hold['number']) == ARGV[1] then
    redis.call('HDEL', KEYS[1], all[i])
    table.insert(out, all[i + 1])
  end
end
return out
"""


class RedisGuardStore:
    """`GuardStore` in the Redis of a `RedisStore`, on its connection and key prefix."""

    def __init__(
        self,
        store: RedisStore,
        *,
        prefix: str = "tanka-bot:",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._client = store.client
        self._prefix = prefix + "guard:"
        self._clock = clock
        self._release = self._client.register_script(_RELEASE)

    def _key(self, *parts: str) -> str:
        return self._prefix + ":".join(parts)

    def put_freeze(self, record: FreezeRecord) -> None:
        with self._store.reachable():
            self._client.hset(self._key("freezes"), record.glob, _json(record))

    def end_freezes(self, glob: str) -> list[FreezeRecord]:
        key = self._key("freezes")
        with self._store.reachable():
            pipe = self._client.pipeline(transaction=True)
            pipe.hget(key, glob)
            pipe.hdel(key, glob)
            raw, _ = pipe.execute()
        if raw is None:
            return []
        found = _freeze(json.loads(raw))
        return [found] if found.until > self._clock() else []

    def freezes(self) -> list[FreezeRecord]:
        # Ended ones stay in the hash (one field per glob, so it stays small) until that glob
        # is frozen or unfrozen again: dropping them here could drop a freeze set meanwhile.
        with self._store.reachable():
            raw = cast("dict[bytes, bytes]", self._client.hgetall(self._key("freezes")))
        now = self._clock()
        live = (_freeze(json.loads(text)) for text in raw.values())
        return sorted((f for f in live if f.until > now), key=lambda f: f.glob)

    def add_grant(self, thread: str, grant: Grant) -> None:
        key = self._key("grants", thread)
        # The list lives as long as its longest grant: relative to the clock, so the store's
        # clock and Redis's may differ. GT lengthens a TTL, NX sets the first one.
        ttl = ttl_millis(max(grant.until - self._clock(), 1.0))
        with self._store.reachable():
            pipe = self._client.pipeline(transaction=True)
            pipe.rpush(key, _json(grant))
            pipe.pexpire(key, ttl, gt=True)
            pipe.pexpire(key, ttl, nx=True)
            pipe.execute()

    def grants(self, thread: str) -> list[Grant]:
        with self._store.reachable():
            raw = cast("list[bytes]", self._client.lrange(self._key("grants", thread), 0, -1))
        now = self._clock()
        return [g for g in (_grant(json.loads(r)) for r in raw) if g.until > now]

    def add_spend(self, name: str, micros: int, ttl: float) -> int:
        key = self._key("spend", name)
        with self._store.reachable():
            pipe = self._client.pipeline(transaction=True)  # MULTI: the add and its expiry
            pipe.incrby(key, int(micros))
            pipe.pexpire(key, ttl_millis(ttl), nx=True)
            total, _ = pipe.execute()
        return int(total)

    def spend(self, name: str) -> int:
        with self._store.reachable():
            raw = self._client.get(self._key("spend", name))
        return int(cast("bytes", raw)) if raw is not None else 0

    def once(self, name: str, ttl: float) -> bool:
        with self._store.reachable():
            return bool(
                self._client.set(self._key("once", name), b"1", nx=True, px=ttl_millis(ttl))
            )

    def claim(self, record: HoldRecord) -> HoldRecord:
        key = self._key("holds")
        with self._store.reachable():
            pipe = self._client.pipeline(transaction=True)
            pipe.hsetnx(key, record.env, _json(record))
            pipe.hget(key, record.env)
            _, raw = pipe.execute()
        return _hold(json.loads(raw))

    def holds(self) -> list[HoldRecord]:
        with self._store.reachable():
            raw = cast("dict[bytes, bytes]", self._client.hgetall(self._key("holds")))
        return sorted((_hold(json.loads(v)) for v in raw.values()), key=lambda h: h.env)

    def release(self, repo: str, number: int) -> list[HoldRecord]:
        with self._store.reachable():
            raw = self._release(keys=[self._key("holds")], args=[f"{repo}#{number}"])
        return sorted((_hold(json.loads(r)) for r in raw), key=lambda h: h.env)

    def wait_on(self, repo: str, number: int, thread: str, ttl: float) -> None:
        key = self._key("waiters", f"{repo}#{number}")
        with self._store.reachable():
            pipe = self._client.pipeline(transaction=True)
            pipe.sadd(key, thread)
            pipe.pexpire(key, ttl_millis(ttl))
            pipe.execute()

    def take_waiters(self, repo: str, number: int) -> list[str]:
        key = self._key("waiters", f"{repo}#{number}")
        with self._store.reachable():
            pipe = self._client.pipeline(transaction=True)  # read and forget: one taker
            pipe.smembers(key)
            pipe.delete(key)
            raw, _ = pipe.execute()
        return sorted(m.decode() for m in cast("set[bytes]", raw))


def build_guard_store(
    store: Store, *, prefix: str = "tanka-bot:", clock: Callable[[], float] = time.time
) -> GuardStore:
    """The guard store beside `store` (bot.store.build_store's, with the same `prefix`): in its
    Redis when it is a RedisStore, else in memory."""
    redis_module = sys.modules.get("bot.store.redis")  # not loaded: no RedisStore exists
    if redis_module is not None and isinstance(store, redis_module.RedisStore):
        return RedisGuardStore(store, prefix=prefix, clock=clock)
    return MemoryGuardStore(clock=clock)


__all__ = [
    "MICROS",
    "FreezeRecord",
    "Grant",
    "GuardStore",
    "HoldRecord",
    "MemoryGuardStore",
    "RedisGuardStore",
    "StoreUnavailable",
    "build_guard_store",
]
