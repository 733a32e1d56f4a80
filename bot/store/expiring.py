"""A dict whose entries may expire, for the in-memory store.

Not thread-safe on its own: the memory store calls it under its lock. Expired entries are
invisible at once and physically removed by `sweep`, which the store runs now and then so
dedupe tokens and message indexes cannot grow without bound.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ExpiringDict(Generic[K, V]):
    __slots__ = ("_entries",)

    def __init__(self) -> None:
        # value and its deadline (unix time), or None for no expiry
        self._entries: dict[K, tuple[V, float | None]] = {}

    def get(self, key: K, now: float) -> V | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        value, deadline = entry
        if deadline is not None and deadline <= now:
            del self._entries[key]
            return None
        return value

    def set(self, key: K, value: V, deadline: float | None) -> None:
        self._entries[key] = (value, deadline)

    def pop(self, key: K) -> None:
        self._entries.pop(key, None)

    def sweep(self, now: float) -> None:
        expired = [k for k, (_, deadline) in self._entries.items() if _expired(deadline, now)]
        for key in expired:
            del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)


def _expired(deadline: float | None, now: float) -> bool:
    return deadline is not None and deadline <= now
