"""Renders of a commit's environments, kept in memory keyed by (commit id, entrypoint path).

A commit never changes, so its render of an environment is reusable until evicted: the base side
of every diff in a session comes from here after the first one. Failures are cached as well (the
same commit fails the same way). Bounded by entry count, least recently used out first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TypeAlias

from tools.tanka.diff.resources import RenderedEnv

DEFAULT_MAX_ENTRIES = 512

# The environments one entrypoint renders to, or the error text it failed with.
Rendered: TypeAlias = Sequence[RenderedEnv] | str


class RenderCache:
    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.max_entries = max(1, max_entries)
        self._entries: OrderedDict[tuple[str, str], Rendered] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, commit: str, entrypoint: str) -> Rendered | None:
        with self._lock:
            found = self._entries.get((commit, entrypoint))
            if found is None:
                self.misses += 1
                return None
            self._entries.move_to_end((commit, entrypoint))
            self.hits += 1
            return found

    def put(self, commit: str, entrypoint: str, rendered: Rendered) -> None:
        with self._lock:
            self._entries[(commit, entrypoint)] = rendered
            self._entries.move_to_end((commit, entrypoint))
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
