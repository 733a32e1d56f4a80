"""Where the service keeps state between Slack events: sessions, the message-to-thread index,
dedupe tokens, queued messages, saved patches (blobs) and lease locks.

One contract (a protocol per role, together `Store`: bot.store.base) with two backends:
process memory for a single replica, Redis when several replicas share the work. Nothing here
knows Slack: keys are `ThreadKey`s and plain strings, sessions are opaque JSON text, blobs
opaque bytes.

An adapter: may import only bot.domain; the only package that imports redis-py.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.store.base import Store, StoreUnavailable
from bot.store.memory import MemoryStore

__all__ = ["MemoryStore", "Store", "StoreUnavailable", "build_store"]


def build_store(
    redis_url: str | None, *, prefix: str = "tanka-bot:", clock: Callable[[], float] = time.time
) -> Store:
    """A Redis store when `redis_url` is given, else an in-memory one.

    Connects lazily: a Redis that is down shows on first use (or `ping`) as StoreUnavailable,
    not here. `prefix` namespaces every Redis key, so several bots can share one Redis.
    """
    if redis_url:
        from bot.store.redis import RedisStore  # noqa: PLC0415 - the memory-only path does not load redis-py

        return RedisStore(redis_url, prefix=prefix, clock=clock)
    return MemoryStore(clock=clock)
