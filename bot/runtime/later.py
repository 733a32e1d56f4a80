"""Jobs to run after a delay, all waited for by one thread (a timer thread each would be a
thread per queued request in a burst)."""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Later:
    def __init__(self) -> None:
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()  # ties keep the order of adding; jobs never compare
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def add(self, delay: float, job: Callable[[], None]) -> None:
        """Run `job` on this object's thread in `delay` seconds (it must be quick: hand slow
        work to a pool). Jobs still waiting when `stop` is called are dropped."""
        with self._changed:
            if self._stopped:
                return
            heapq.heappush(self._due, (time.monotonic() + delay, next(self._order), job))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="later", daemon=True)
                self._thread.start()
            self._changed.notify()

    def stop(self) -> None:
        with self._changed:
            self._stopped = True
            self._due.clear()
            self._changed.notify()

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._stopped and (not self._due or self._due[0][0] > time.monotonic()):
                    wait = self._due[0][0] - time.monotonic() if self._due else None
                    self._changed.wait(wait)
                if self._stopped:
                    return
                _, _, job = heapq.heappop(self._due)
            try:
                job()
            except Exception:
                log.exception("a delayed job failed")
