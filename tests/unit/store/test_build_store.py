"""build_store: memory without a URL, Redis with one, every Redis key under the prefix."""

from __future__ import annotations

import pytest
import redis

from bot.domain.thread import ThreadKey
from bot.store import MemoryStore, build_store
from bot.store.redis import RedisStore
from tests.redis_server import RedisServer

KEY = ThreadKey("C1", "1700000000.000100")


@pytest.mark.parametrize("url", [None, ""])
def test_no_url_gives_a_memory_store(url: str | None) -> None:
    assert isinstance(build_store(url), MemoryStore)


def test_a_url_gives_a_redis_store_whose_keys_carry_the_prefix(shared_redis: RedisServer) -> None:
    store = build_store(shared_redis.url, prefix="build-test:")
    raw = redis.Redis.from_url(shared_redis.url)
    try:
        assert isinstance(store, RedisStore)
        store.save(KEY, "{}", updated=1.0)
        store.index_message("C1", "1.1", KEY, 60)
        store.first_seen("Ev1", 60)
        store.push_pending(KEY, "x")
        store.put_blob("b", b"x", None)
        store.acquire("l", "o", 60)
        mine = raw.keys("build-test:*")
        assert len(mine) == 8  # session, 2 session indexes, message, seen, pending, blob, lock
    finally:
        raw.close()
        store.close()


def test_prefixes_keep_two_bots_apart(shared_redis: RedisServer) -> None:
    one = build_store(shared_redis.url, prefix="bot-one:")
    two = build_store(shared_redis.url, prefix="bot-two:")
    try:
        one.save(KEY, '{"bot": 1}', updated=1.0)
        assert one.acquire("l", "one", 60)
        assert two.load(KEY) is None
        assert two.sessions() == []
        assert two.acquire("l", "two", 60)
        assert two.first_seen("Ev1", 60) is True
        assert one.first_seen("Ev1", 60) is True
    finally:
        one.close()
        two.close()


@pytest.mark.parametrize("url", ["http://:pw-in-url@host:6379", "redis://:pw-in-url@host:notaport"])
def test_an_invalid_url_is_a_value_error_without_the_password(url: str) -> None:
    with pytest.raises(ValueError, match="invalid Redis URL") as caught:
        build_store(url).ping()
    assert "pw-in-url" not in str(caught.value)
