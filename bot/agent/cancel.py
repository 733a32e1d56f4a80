"""A cancel token one thread sets and the turn's thread polls (Ctrl+C, the cancel emoji)."""

from __future__ import annotations

import threading

DEFAULT_REASON = "cancelled by request; edits made so far are kept"


class CancelToken:
    """Thread-safe, one-way: once cancelled it stays cancelled. Use a new token per turn."""

    __slots__ = ("_event", "_reason")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._reason = DEFAULT_REASON

    def cancel(self, reason: str = DEFAULT_REASON) -> None:
        if not self._event.is_set():
            self._reason = reason
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float) -> bool:
        """Sleep up to `timeout` seconds; True as soon as the token is cancelled."""
        return self._event.wait(max(timeout, 0.0))

    @property
    def reason(self) -> str:
        return self._reason
