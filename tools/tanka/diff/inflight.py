"""One computation per key at a time, for work whose result is kept where the next caller finds
it (a base render, a commit's import index).

The service's cache maintenance prepares each new base commit while sessions may need the same
renders: the first session after start-up teaches its mask every environment of the commit the
maintenance is rendering. Without this, both evaluated each environment, on the same CPUs; with
it, the second caller waits for the first and then finds the result stored.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager


class InFlight:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[Hashable, tuple[threading.Lock, int]] = {}  # key -> (lock, holders)

    @contextmanager
    def hold(self, key: Hashable) -> Iterator[None]:
        """Run the block alone among the holders of `key`; the caller looks again, inside it,
        for what an earlier holder may have made meanwhile."""
        with self._lock:
            lock, holders = self._held.get(key, (threading.Lock(), 0))
            self._held[key] = (lock, holders + 1)
        try:
            with lock:
                yield
        finally:
            with self._lock:
                lock, holders = self._held[key]
                if holders == 1:
                    del self._held[key]  # no one waits: a key done with costs nothing
                else:
                    self._held[key] = (lock, holders - 1)
