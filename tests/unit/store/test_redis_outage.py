"""The Redis store when Redis is down, slow or refuses us: StoreUnavailable, fast, with the
address and never the password; and the same store object works again once Redis is back."""

from __future__ import annotations

import socket
import traceback
from collections.abc import Callable, Iterator
from functools import partial

import pytest

from bot.domain.thread import ThreadKey
from bot.store import StoreUnavailable
from bot.store.redis import RedisStore
from tests.redis_server import RedisServer
from tests.unit.store.conftest import REDIS_PASSWORD

KEY = ThreadKey("C1", "1700000000.000100")

OPERATIONS: dict[str, Callable[[RedisStore], object]] = {
    "load": lambda s: s.load(KEY),
    "save": lambda s: s.save(KEY, "{}", updated=1.0),
    "delete": lambda s: s.delete(KEY),
    "sessions": lambda s: s.sessions(),
    "sessions_of_channel": lambda s: s.sessions("C1"),
    "index_message": lambda s: s.index_message("C1", "1.1", KEY, 60),
    "thread_of": lambda s: s.thread_of("C1", "9.9"),  # never indexed: asks Redis
    "first_seen": lambda s: s.first_seen("Ev1", 60),
    "first_seen_all": lambda s: s.first_seen_all(["Ev1", "C1:1.1"], 60),
    "work_waiting": lambda s: s.work_waiting("w"),
    "push_pending": lambda s: s.push_pending(KEY, "x"),
    "drain_pending": lambda s: s.drain_pending(KEY),
    "put_blob": lambda s: s.put_blob("b", b"\x00", 60),
    "get_blob": lambda s: s.get_blob("b"),
    "delete_blob": lambda s: s.delete_blob("b"),
    "ping": lambda s: s.ping(),
    "put_work": lambda s: s.put_work("w"),
    "take_work": lambda s: s.take_work("r", 1.0),
    "done_work": lambda s: s.done_work("r", "w"),
    "return_work": lambda s: s.return_work("r"),
    "work_owners": lambda s: s.work_owners(),
    "acquire": lambda s: s.acquire("l", "o", 60),
    "renew": lambda s: s.renew("l", "o", 60),
    "release": lambda s: s.release("l", "o"),
    "holder": lambda s: s.holder("l"),
}


@pytest.fixture
def store(redis_server: RedisServer) -> Iterator[RedisStore]:
    store = RedisStore(redis_server.url, prefix="outage:")
    yield store
    store.close()


def assert_unavailable(
    call: Callable[[], object], *, address: str, secret: str = REDIS_PASSWORD
) -> None:
    with pytest.raises(StoreUnavailable) as caught:
        call()
    message = str(caught.value)
    assert f"Redis at {address} is unavailable" in message
    shown = "".join(traceback.format_exception(caught.value))
    assert secret not in shown


def run_every_operation(store: RedisStore) -> None:
    for call in OPERATIONS.values():
        call(store)


def test_every_operation_reports_an_outage_without_the_password(
    redis_server: RedisServer, store: RedisStore
) -> None:
    run_every_operation(store)  # connected and working
    redis_server.stop()
    for name, call in OPERATIONS.items():
        try:
            assert_unavailable(partial(call, store), address=f"127.0.0.1:{redis_server.port}")
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc


def test_the_same_store_works_again_after_redis_comes_back(
    redis_server: RedisServer, store: RedisStore
) -> None:
    store.save(KEY, '{"v": 1}', updated=1.0)
    redis_server.stop()
    assert_unavailable(store.ping, address=f"127.0.0.1:{redis_server.port}")
    redis_server.start()
    # nothing is persisted, so the restarted Redis is empty; every operation works again,
    # Lua scripts included (the restarted server's script cache is empty)
    assert store.load(KEY) is None
    store.save(KEY, '{"v": 2}', updated=2.0)
    assert store.load(KEY) == '{"v": 2}'
    assert store.acquire("l", "o", 60) is True
    assert store.release("l", "o") is True
    assert store.first_seen("Ev1", 60) is True
    run_every_operation(store)


def test_pooled_connections_heal_after_a_restart_without_a_failed_call(
    redis_server: RedisServer, store: RedisStore
) -> None:
    store.ping()  # the pool now holds a connection to the old server process
    redis_server.stop()
    redis_server.start()
    for call in OPERATIONS.values():
        call(store)  # the stale connection is replaced transparently, not reported


def test_messages_this_store_indexed_are_found_while_redis_is_down(
    redis_server: RedisServer, store: RedisStore
) -> None:
    """The index is kept in memory too, so a reaction on the bot's own message can still be
    answered in its thread during an outage (and costs no round trip otherwise)."""
    store.index_message("C1", "1.1", KEY, 60)
    other = RedisStore(redis_server.url, prefix="outage:")  # another replica
    try:
        assert other.thread_of("C1", "1.1") == KEY  # from Redis, then remembered
        redis_server.stop()
        assert store.thread_of("C1", "1.1") == KEY
        assert other.thread_of("C1", "1.1") == KEY
        assert_unavailable(partial(store.thread_of, "C1", "2.2"),
                           address=f"127.0.0.1:{redis_server.port}")  # fmt: skip
    finally:
        other.close()


def test_wrong_password_is_unavailable_and_not_shown(redis_server: RedisServer) -> None:
    url = redis_server.url.replace(REDIS_PASSWORD, "wrong-pw-123")
    store = RedisStore(url)
    try:
        assert_unavailable(
            store.ping, address=f"127.0.0.1:{redis_server.port}", secret="wrong-pw-123"
        )
    finally:
        store.close()


def test_a_server_that_never_answers_is_reported_not_waited_for() -> None:
    # A listening socket nobody accepts from: the TCP handshake completes, no reply ever
    # comes. The store's socket timeout must turn that into StoreUnavailable.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        store = RedisStore(f"redis://:{REDIS_PASSWORD}@127.0.0.1:{port}/0")
        try:
            assert_unavailable(store.ping, address=f"127.0.0.1:{port}")
        finally:
            store.close()
