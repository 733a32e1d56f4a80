"""bot.runtime.later: delayed jobs run in the order they fall due, on one thread; a failing job
does not stop the others; jobs still waiting at `stop` are dropped."""

from __future__ import annotations

import threading
import time

from bot.runtime.later import Later


def test_jobs_run_when_due_in_that_order_and_a_failure_stops_nothing() -> None:
    later, ran, done = Later(), [], threading.Event()

    def fail() -> None:
        raise RuntimeError("a notice that could not be posted")

    def last() -> None:
        ran.append("last")
        done.set()

    started = time.monotonic()
    later.add(0.3, last)
    later.add(0.1, lambda: ran.append("first"))
    later.add(0.2, fail)
    later.add(0.2, lambda: ran.append("second"))  # same time as the failing one: after it
    assert done.wait(10)
    assert ran == ["first", "second", "last"]
    assert time.monotonic() - started >= 0.3
    later.stop()


def test_stop_drops_what_is_still_waiting() -> None:
    later, ran = Later(), []
    later.add(0.2, lambda: ran.append("dropped"))
    later.stop()
    later.add(0.0, lambda: ran.append("after stop"))
    time.sleep(0.4)
    assert ran == []
