"""Fixtures that run the store contract against every backend.

`backend` is parametrized over memory, memory as a work process reaches it (the serving
process's, over its local socket: bot.store.remote) and a real Redis. Each test gets a fresh,
isolated store (a new MemoryStore; a unique key prefix on the shared Redis) and a way to let
time pass: the memory store's injected clock is advanced, Redis is given real (short) time.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.store import Store
from bot.store.memory import MemoryStore
from bot.store.redis import RedisStore
from bot.store.remote import Channel, Host
from tests.redis_server import RedisServer, redis_server_binary

REDIS_PASSWORD = "pw-not-to-be-shown"


class FakeClock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Backend:
    """A store under test, plus what differs between backends."""

    name: str
    store: Store
    pass_time: Callable[[float], None]
    # another store sharing the same data, as a second replica would
    replica: Callable[[], Store]
    opened: list[Store] = field(default_factory=list)


def start_redis(workdir: Path) -> RedisServer:
    if redis_server_binary() is None:
        pytest.skip("redis-server is not on PATH (package redis-server; .ci/run installs it)")
    server = RedisServer(workdir, password=REDIS_PASSWORD)
    server.start()
    return server


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis of the test's own, for tests that stop and restart it."""
    server = start_redis(tmp_path)
    yield server
    server.stop()


def _memory_backend() -> Backend:
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    return Backend("memory", store, clock.advance, lambda: store)


def _redis_backend(server: RedisServer) -> Backend:
    prefix = f"test-{uuid.uuid4().hex[:8]}:"
    opened: list[Store] = []

    def open_store() -> Store:
        store = RedisStore(server.url, prefix=prefix)
        opened.append(store)
        return store

    return Backend("redis", open_store(), time.sleep, open_store, opened)


@pytest.fixture
def hosted() -> Iterator[Callable[[object], Callable[[], Any]]]:
    """Serves an object as the serving process serves its work process (bot.store.remote): each
    call of what it returns is a new reach of it, as from another process (its own connections)."""
    hosts: list[Host] = []

    def host(target: object) -> Callable[[], Any]:
        made = Host({"target": target})
        made.start()
        hosts.append(made)
        return lambda: Channel(made.address).remote("target")

    yield host
    for made in hosts:
        made.close()


@pytest.fixture(params=["memory", "remote", "redis"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    if request.param == "memory":
        yield _memory_backend()
        return
    if request.param == "remote":
        clock = FakeClock()
        reach = request.getfixturevalue("hosted")(MemoryStore(clock=clock))
        yield Backend("remote", reach(), clock.advance, reach)
        return
    made = _redis_backend(request.getfixturevalue("shared_redis"))
    yield made
    for store in made.opened:
        store.close()
