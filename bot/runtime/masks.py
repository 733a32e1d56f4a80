"""Each thread's SecretMask on this replica: the Secret values its posts and audit lines hide."""

from __future__ import annotations

import threading

from bot.domain.thread import ThreadKey
from tools.redaction import SecretMask

MASKS_KEPT = 1000  # threads whose Secret values this replica remembers


class ThreadMasks:
    def __init__(self) -> None:
        self._masks: dict[str, SecretMask] = {}
        self._taught: set[str] = set()  # threads whose mask has learned their session's change
        self._lock = threading.Lock()

    def get(self, key: ThreadKey) -> tuple[SecretMask, bool]:
        """The thread's Secret values seen so far, and whether they were taught on this replica.
        In memory only: values never go to the store, so a new mask (after a restart, on another
        replica, or once dropped here) is taught again by rendering (`teach_mask`)."""
        with self._lock:
            mask = self._masks.pop(key.id, None) or SecretMask()
            self._masks[key.id] = mask  # most recently used last
            while len(self._masks) > MASKS_KEPT:
                dropped = next(iter(self._masks))
                del self._masks[dropped]
                self._taught.discard(dropped)
            return mask, key.id in self._taught

    def taught(self, key: ThreadKey) -> None:
        with self._lock:
            self._taught.add(key.id)
