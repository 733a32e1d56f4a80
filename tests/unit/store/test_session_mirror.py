"""The session mirror (bot.store.session_mirror) on a real Redis: a reply in a thread with no
session costs no round trip, a session saved by another replica is seen, and a Redis restart
makes the mirror step aside until it is in step again, never answering "none" from stale data."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.domain.thread import ThreadKey
from bot.store import StoreUnavailable
from bot.store.redis import RedisStore
from tests.redis_server import RedisServer
from tests.unit.store.conftest import REDIS_PASSWORD

OURS = ThreadKey("C1", "1700000000.000100")
THEIRS = ThreadKey("C1", "1700000001.000100")
PEOPLE = ThreadKey("C1", "1700000002.000100")


class CountingClient:
    """The store's client, counting EXISTS (a round trip each)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.exists_calls = 0

    def exists(self, *names: object) -> Any:
        self.exists_calls += 1
        return self.inner.exists(*names)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def eventually(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 10
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within 10 s: {what}")
        time.sleep(0.02)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path, password=REDIS_PASSWORD, keep_data=True)
    server.start()
    yield server
    server.stop()


def test_no_round_trip_for_a_thread_without_a_session(server: RedisServer) -> None:
    serving, other = RedisStore(server.url), RedisStore(server.url)  # two replicas
    try:
        serving.save(OURS, "{}", updated=1.0)  # before the mirror: found in its snapshot
        counting = CountingClient(serving.client)
        serving.client = counting  # type: ignore[assignment]
        mirror = serving.follow_sessions()
        eventually(lambda: mirror.synced, "the mirror is in step")

        assert serving.has_session(PEOPLE) is False
        assert counting.exists_calls == 0  # answered from memory
        assert serving.has_session(OURS) is True
        assert counting.exists_calls == 1  # a "maybe" is confirmed by Redis

        other.save(THEIRS, "{}", updated=2.0)  # another replica's new session
        eventually(lambda: serving.has_session(THEIRS), "another replica's session is seen")
        other.delete(THEIRS)
        eventually(lambda: mirror.lacks(THEIRS.id), "a deleted session is forgotten")
        assert serving.has_session(THEIRS) is False
    finally:
        serving.close()
        other.close()


def test_a_redis_restart_never_answers_from_stale_data(server: RedisServer) -> None:
    serving, other = RedisStore(server.url), RedisStore(server.url)
    try:
        mirror = serving.follow_sessions()
        eventually(lambda: mirror.synced, "the mirror is in step")
        server.stop()
        eventually(lambda: not mirror.synced, "the mirror steps aside")
        with pytest.raises(StoreUnavailable):  # asks Redis, which says it is down
            serving.has_session(PEOPLE)
        server.start()  # its data kept (append-only file)
        other.save(THEIRS, "{}", updated=3.0)  # saved before the mirror is back in step
        eventually(lambda: mirror.synced, "the mirror is in step again")
        assert serving.has_session(THEIRS) is True
        assert mirror.lacks(PEOPLE.id)
    finally:
        serving.close()
        other.close()


def test_a_session_written_without_a_word_is_seen_at_the_next_reading(
    server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replica of an older version saves without publishing (a rolling upgrade): the mirror
    reads every session again every RELOAD_SECONDS, so it does not miss such a thread for long."""
    monkeypatch.setattr("bot.store.session_mirror.RELOAD_SECONDS", 0.5)
    serving = RedisStore(server.url)
    try:
        mirror = serving.follow_sessions()
        eventually(lambda: mirror.synced, "the mirror is in step")
        serving.client.set(f"tanka-bot:session:{THEIRS.id}", b"{}")  # as an old replica does
        serving.client.zadd("tanka-bot:sessions", {THEIRS.id: 4.0})
        eventually(lambda: not mirror.lacks(THEIRS.id), "the next reading finds it")
        assert serving.has_session(THEIRS) is True
    finally:
        serving.close()
