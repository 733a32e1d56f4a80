"""A bounded pool for slow work: the Slack ack never waits, and a full pool says so.

`submit` never blocks. It reports whether the job started at once, waits in the backlog for a
worker (the caller tells the thread it is queued), or was refused because the backlog is full
(the caller tells the thread to try again later). Nothing is dropped silently. (The durable work
queue is bot.runtime.admission's; a thread's waiting messages are bot.runtime.pending's.)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from enum import StrEnum

log = logging.getLogger(__name__)


class Submitted(StrEnum):
    """What became of a submitted job."""

    STARTED = "started"
    QUEUED = "queued"
    FULL = "full"


class Dispatcher:
    def __init__(
        self, workers: int, backlog: int, *, on_depth: Callable[[int], None] | None = None
    ) -> None:
        self.workers = workers
        self.capacity = workers + backlog
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="turn")
        self._lock = threading.Lock()
        self._pending = 0  # submitted and not finished
        self._on_depth = on_depth or (lambda _depth: None)
        self._closed = False

    def submit(self, job: Callable[[], None]) -> Submitted:
        with self._lock:
            if self._closed or self._pending >= self.capacity:
                return Submitted.FULL
            self._pending += 1
            admission = Submitted.STARTED if self._pending <= self.workers else Submitted.QUEUED
            self._on_depth(max(self._pending - self.workers, 0))
        try:
            self._pool.submit(self._run, job)
        except RuntimeError:  # shutdown() closed the pool since the check above
            with self._lock:
                self._pending -= 1
                self._on_depth(max(self._pending - self.workers, 0))
            return Submitted.FULL
        return admission

    def _run(self, job: Callable[[], None]) -> None:
        try:
            job()
        except Exception:  # a job's own error handling failed; never kill the worker
            log.exception("job failed")
        finally:
            with self._lock:
                self._pending -= 1
                self._on_depth(max(self._pending - self.workers, 0))

    @property
    def busy(self) -> int:
        with self._lock:
            return self._pending

    def shutdown(self, timeout: float) -> bool:
        """Stop taking jobs and wait up to `timeout` s for running ones; whether all finished."""
        with self._lock:
            self._closed = True
        done = threading.Event()

        def wait() -> None:
            self._pool.shutdown(wait=True, cancel_futures=False)
            done.set()

        threading.Thread(target=wait, daemon=True).start()
        return done.wait(timeout)
