"""A cancel token one thread sets and the turn's thread polls (Ctrl+C, the cancel emoji)."""

from __future__ import annotations

import threading

DEFAULT_REASON = "cancelled by request; edits made so far are kept"


class CancelToken:
    """Thread-safe, one-way: once cancelled it stays cancelled. Use a new token per turn.

    A sub-agent runs on a `child()` token: cancelling the parent cancels every child at once (so
    a sub-agent's backoff sleep ends too), and a child can be cancelled alone.
    """

    __slots__ = ("_children", "_event", "_lock", "_reason")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._reason = DEFAULT_REASON
        self._lock = threading.Lock()
        self._children: list[CancelToken] = []

    def cancel(self, reason: str = DEFAULT_REASON) -> None:
        with self._lock:
            if not self._event.is_set():
                self._reason = reason
            self._event.set()
            children, self._children = self._children, []
        for child in children:
            child.cancel(reason)

    def child(self) -> CancelToken:
        """A token cancelled with this one (at once if this one already is)."""
        token = CancelToken()
        with self._lock:
            if not self._event.is_set():
                self._children.append(token)
                return token
        token.cancel(self._reason)
        return token

    def release(self, child: CancelToken) -> None:
        """Forget a child whose work is over (a long turn starts many sub-agents)."""
        with self._lock:
            if child in self._children:
                self._children.remove(child)

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float) -> bool:
        """Sleep up to `timeout` seconds; True as soon as the token is cancelled."""
        return self._event.wait(max(timeout, 0.0))

    @property
    def reason(self) -> str:
        return self._reason
