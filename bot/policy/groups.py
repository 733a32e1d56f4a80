"""Slack user groups' members, cached briefly: the lookup behind every group in the rules.

The rules themselves (who may steer, who may approve) are bot.policy.rules'. A group whose
members cannot be read raises `ChatError`, and the rules refuse: nothing is guessed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from bot.policy.rules import Members


class GroupCache:
    """User group members, cached for `ttl` seconds (the lookup is rate-limited by Slack)."""

    def __init__(
        self, lookup: Members, *, ttl: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._lookup = lookup
        self._ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, frozenset[str]]] = {}

    def members(self, group: str) -> frozenset[str]:
        now = self._clock()
        with self._lock:
            hit = self._cache.get(group)
            if hit is not None and now - hit[0] < self._ttl:
                return hit[1]
        members = self._lookup(group)  # ChatError propagates: the caller refuses
        with self._lock:
            self._cache[group] = (now, members)
        return members
