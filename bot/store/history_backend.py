"""Which history goes with which store: Redis beside a Redis store (sharing its connections,
so every replica reads the same history), else process memory."""

from __future__ import annotations

import sys

from bot.store.history import History, MemoryHistory


def build_history(store: object, *, days: float, prefix: str = "tanka-bot:") -> History:
    if "bot.store.redis" in sys.modules:  # else `store` cannot be a RedisStore
        from bot.store.history_redis import RedisHistory  # noqa: PLC0415 - the memory-only path does not load redis-py
        from bot.store.redis import RedisStore  # noqa: PLC0415 - as above

        if isinstance(store, RedisStore):
            return RedisHistory(store.client, store.reachable, prefix=prefix, days=days)
    return MemoryHistory(days=days)
