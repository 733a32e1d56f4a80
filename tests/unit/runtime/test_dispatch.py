"""bot.runtime.dispatch: admission (STARTED / QUEUED / FULL), failing jobs, shutdown. No sleeps."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import pytest

from bot.runtime.dispatch import Dispatcher, Submitted

WAIT = 5.0


class Gate:
    """Jobs that report when they start and block until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started: list[threading.Event] = []

    def job(self) -> Callable[[], None]:
        started = threading.Event()
        self.started.append(started)

        def run() -> None:
            started.set()
            assert self.release.wait(WAIT)

        return run


@pytest.fixture
def gate() -> Iterator[Gate]:
    g = Gate()
    yield g
    g.release.set()


def test_started_up_to_workers_then_queued_then_full(gate: Gate) -> None:
    depths: list[int] = []
    dispatcher = Dispatcher(2, 2, on_depth=depths.append)
    results = [dispatcher.submit(gate.job()) for _ in range(5)]
    assert results == [
        Submitted.STARTED,
        Submitted.STARTED,
        Submitted.QUEUED,
        Submitted.QUEUED,
        Submitted.FULL,
    ]
    assert dispatcher.busy == 4
    assert gate.started[0].wait(WAIT)
    assert gate.started[1].wait(WAIT)
    assert not gate.started[4].is_set()
    assert depths == [0, 0, 1, 2]
    gate.release.set()
    assert dispatcher.shutdown(WAIT)
    assert all(e.is_set() for e in gate.started[:4])
    assert not gate.started[4].is_set()  # refused jobs never run
    assert dispatcher.busy == 0
    assert depths[-1] == 0


def test_a_finished_job_frees_its_slot() -> None:
    depth_calls: list[int] = []
    freed = threading.Event()

    def on_depth(depth: int) -> None:
        depth_calls.append(depth)
        if len(depth_calls) == 2:  # the first on submit, the second when the job is done
            freed.set()

    dispatcher = Dispatcher(1, 0, on_depth=on_depth)
    assert dispatcher.submit(lambda: None) is Submitted.STARTED
    assert freed.wait(WAIT)
    assert dispatcher.busy == 0
    finished = threading.Event()
    assert dispatcher.submit(finished.set) is Submitted.STARTED
    assert finished.wait(WAIT)
    assert dispatcher.shutdown(WAIT)


def test_a_failing_job_does_not_kill_the_pool(caplog: pytest.LogCaptureFixture) -> None:
    dispatcher = Dispatcher(1, 1)

    def boom() -> None:
        raise RuntimeError("handler bug")

    ran = threading.Event()
    assert dispatcher.submit(boom) is Submitted.STARTED
    dispatcher.submit(ran.set)
    assert ran.wait(WAIT)
    assert dispatcher.shutdown(WAIT)
    assert dispatcher.busy == 0
    assert any("job failed" in r.getMessage() and r.exc_info for r in caplog.records)


def test_shutdown_waits_for_running_and_queued_jobs(gate: Gate) -> None:
    dispatcher = Dispatcher(1, 1)
    finished: list[int] = []

    def job(n: int) -> Callable[[], None]:
        inner = gate.job()

        def run() -> None:
            inner()
            finished.append(n)

        return run

    assert dispatcher.submit(job(1)) is Submitted.STARTED
    assert dispatcher.submit(job(2)) is Submitted.QUEUED
    assert gate.started[0].wait(WAIT)
    assert dispatcher.shutdown(0.05) is False  # still running: reports it did not finish
    assert dispatcher.submit(gate.job()) is Submitted.FULL  # closed: no new work
    gate.release.set()
    assert dispatcher.shutdown(WAIT) is True
    assert finished == [1, 2]


def test_shutdown_of_an_idle_pool() -> None:
    assert Dispatcher(2, 2).shutdown(WAIT) is True


def test_submit_racing_shutdown_is_refused_not_raised() -> None:
    # shutdown() can land between submit's admission check and the pool hand-off.
    dispatcher = Dispatcher(1, 1)
    pool = dispatcher._pool

    class RacingPool:
        def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
            pool.shutdown(wait=True)
            return pool.submit(fn, *args)

        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            pool.shutdown(wait=wait, cancel_futures=cancel_futures)

    dispatcher._pool = RacingPool()  # type: ignore[assignment]
    assert dispatcher.submit(lambda: None) is Submitted.FULL
    assert dispatcher.busy == 0
