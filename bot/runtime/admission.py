"""Admission: a request is on the work queue before Slack is acknowledged, and never lost after.

The listener puts each request that is work (bot.runtime.triage said so) on the store's work
queue (Redis when configured, so it outlives this process) and only then lets Bolt answer.
`workers` consumer threads take items oldest first, each into this replica's taken list, run
them through the runner and forget them when done. Each replica holds an owner lease (the
store's lock, renewed like a thread's lease, bot.runtime.lease); a replica that dies stops
renewing it, and any other replica then puts the dead one's taken items back at the head of
the queue, where the next free worker takes them.

Notices ("queued", "store unavailable") are posted by a small separate pool (`soon`), so the
acknowledgement never waits for Slack; the listener sends them only for requests it is sure are
for the bot.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Protocol

from bot.domain.alerts import AlertNotification
from bot.domain.pr_events import subject
from bot.domain.requests import Mention, Reaction, ThreadReply
from bot.errors import ServiceUnavailable
from bot.runtime import work as items
from bot.runtime.later import Later
from bot.runtime.lease import dead_mark, owner_lock
from bot.runtime.work import BadWork, NewEnvRequest, Work
from bot.store.base import Blobs, Leases, StoreUnavailable, WorkQueue

log = logging.getLogger(__name__)

TAKE_WAIT = 1.0  # seconds a consumer waits on an empty queue before looking at its stop flag
RETRY = 1.0  # seconds between tries while the store is down
# Requests waiting on the queue, at most (all replicas together): a flood of mentions (a script,
# a loop between bots) must not grow Redis without bound; past it, each asker hears "busy".
MAX_QUEUED = 500
# A request still waiting this long (seconds) after it was queued is told so in its thread.
QUEUED_NOTICE_AFTER = 3.0
WORKER_NICE = 10  # how much lower the workers' CPU priority is than the listeners'
# A request taken waits until Slack's events have paused this long (seconds), at most
# HOLD_AT_MOST: a turn started during a burst of events delays their acks (its calls to the
# store, to Slack and to the model are served at normal priority, here and elsewhere on the
# machine), where waiting a moment delays an answer that takes seconds anyway.
QUIET = 0.05
HOLD_AT_MOST = 1.0


class AdmissionStore(WorkQueue, Leases, Blobs, Protocol):
    """The store's roles the work queue uses: the queue, each owner's lease, the dead marks."""


class Count(Protocol):
    """How many taken requests are running: a plain counter, or a `multiprocessing.Value` shared
    with the serving process when the workers run in a work process of their own."""

    value: int

    def get_lock(self) -> AbstractContextManager[object]: ...

    def get_obj(self) -> _Value:
        """The value itself, read without the lock."""
        ...


class _Value(Protocol):
    value: int


class Stamp(Protocol):
    """When the latest Slack event arrived (time.monotonic(), the same clock in every process
    of the machine): a plain holder, or a lock-free `multiprocessing.Value` written by the
    serving process and read by the work process's workers."""

    value: float


class LocalStamp:
    def __init__(self) -> None:
        self.value = 0.0


class LocalCount:
    def __init__(self) -> None:
        self.value = 0
        self._lock = threading.Lock()

    def get_lock(self) -> AbstractContextManager[object]:
        return self._lock

    def get_obj(self) -> LocalCount:
        return self


class QueueFull(ServiceUnavailable):
    """The work queue holds MAX_QUEUED requests: this one was not taken."""

    dependency = "work_queue"


class Admission:
    def __init__(
        self, store: AdmissionStore, run: Callable[[Work], None], *, owner: str, workers: int,
        lease_ttl: float, on_depth: Callable[[int], None] | None = None,
        busy: Count | None = None,
    ) -> None:  # fmt: skip
        self.store = store
        self.owner = owner
        self.workers = workers
        self.lease_ttl = lease_ttl
        self._run = run
        self._on_depth = on_depth or (lambda _depth: None)
        self._stop = threading.Event()
        self._leased = threading.Event()  # the owner lease is held: taking work is safe
        self._lock = threading.Lock()
        self.busy = busy or LocalCount()
        self.heard: Stamp = LocalStamp()
        self._unforgotten: list[str] = []  # done, but the store was down when we said so
        self._threads: list[threading.Thread] = []
        self._notices = ThreadPoolExecutor(max_workers=2, thread_name_prefix="notice")
        self._later = Later()

    # --- the listener's side (before the ack) ---------------------------------------------------

    def admit(self, work: Work) -> str | None:
        """Put `work` on the queue (durable once this returns). When it waits behind others,
        its item (for `if_still_waiting`); None when a worker is free for it.

        Raises StoreUnavailable when the queue cannot take it, QueueFull when MAX_QUEUED
        requests wait already: the caller says so in the thread if it is sure the request was
        for the bot.
        """
        item = items.dump(work)
        depth = self.store.put_work(item, limit=MAX_QUEUED)
        if not depth:
            raise QueueFull(f"{MAX_QUEUED} requests are waiting already")
        # Read without the lock: the work process's workers take it, at a lower priority, and
        # the ack must never wait for one to be scheduled again; a count a moment old is fine.
        idle = self.workers - self.busy.get_obj().value
        self._on_depth(depth)
        return item if depth > idle else None

    def hear(self) -> None:
        """A Slack event is being acknowledged (the edge, per event): see QUIET."""
        self.heard.value = time.monotonic()

    def if_still_waiting(self, item: str, job: Callable[[], None]) -> None:
        """Run `job` (the "queued" notice) QUEUED_NOTICE_AFTER seconds from now, if `item` is
        still on the queue then: a wait that short needs no message, and a burst's notices are
        not posted while the burst is being acknowledged."""

        def check() -> None:
            try:
                waiting = self.store.work_waiting(item)
            except StoreUnavailable as exc:
                log.info("not telling a thread it is queued: %s", exc)
                return
            if waiting:
                job()

        self._later.add(QUEUED_NOTICE_AFTER, lambda: self.soon(check))

    def soon(self, job: Callable[[], None]) -> None:
        """Run a short job (a notice, a cancel) off the ack path; its errors are logged."""

        def run() -> None:
            try:
                job()
            except Exception:
                log.exception("notice failed")

        try:
            self._notices.submit(run)
        except RuntimeError:  # stopping: run it here rather than drop it
            run()

    # --- the workers ----------------------------------------------------------------------------

    def start(self) -> None:
        keeper = threading.Thread(target=self._keep, name="admission-lease", daemon=True)
        self._threads.append(keeper)
        for i in range(self.workers):
            self._threads.append(
                threading.Thread(target=self._consume, name=f"work-{i}", daemon=True)
            )
        for thread in self._threads:
            thread.start()

    def stop(self, timeout: float) -> bool:
        """Stop taking work and let running requests finish (up to `timeout` s in all); whether
        they did. Items not taken stay on the queue; items taken and cut off here are run again
        by another replica once this one's owner lease expires."""
        self._stop.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._notices.shutdown(wait=False, cancel_futures=False)
        self._later.stop()
        return not any(thread.is_alive() for thread in self._threads)

    def _consume(self) -> None:
        _yield_to_acks()
        while not self._stop.is_set():
            if not self._leased.wait(RETRY):
                continue
            try:
                raw = self.store.take_work(self.owner, TAKE_WAIT)
            except StoreUnavailable as exc:
                log.warning("cannot take work: %s", exc)
                self._stop.wait(RETRY)
                continue
            if raw is None:
                continue
            with self.busy.get_lock():  # busy while it holds back too: its request is taken
                self.busy.value += 1
            try:
                self._until_quiet()
                self._handle(raw)
            finally:
                with self.busy.get_lock():
                    self.busy.value -= 1
                self._forget(raw)

    def _until_quiet(self) -> None:
        """Wait (HOLD_AT_MOST at most) until no Slack event arrived for QUIET seconds. The
        request is taken meanwhile: a process that dies here has it queued again."""
        deadline = time.monotonic() + HOLD_AT_MOST
        while (now := time.monotonic()) < deadline and now - self.heard.value < QUIET:
            if self._stop.wait(QUIET):
                return

    def _handle(self, raw: str) -> None:
        try:
            work = items.load(raw)
        except BadWork as exc:
            log.error("dropped a work item: %s", exc)
            return
        try:
            self._run(work)
        except Exception:  # the runner answers in the thread; this is its own failure
            log.exception("work failed for %s", _where(work))

    def _forget(self, raw: str) -> None:
        try:
            self.store.done_work(self.owner, raw)
        except StoreUnavailable as exc:  # the keeper tries again: never redone by another
            log.warning("could not mark work done: %s", exc)
            with self._lock:
                self._unforgotten.append(raw)

    # --- the owner lease and the dead replicas' work --------------------------------------------

    def _keep(self) -> None:
        every = max(self.lease_ttl / 3, 0.5)
        while True:
            try:
                self._tend()
            except StoreUnavailable as exc:
                log.warning("admission upkeep failed: %s", exc)
            if self._stop.wait(every if self._leased.is_set() else RETRY):
                return

    def _tend(self) -> None:
        if not self.store.acquire(owner_lock(self.owner), self.owner, self.lease_ttl):
            log.error("another process holds this replica's owner lease %s", self.owner)
            self._leased.clear()
            return
        self._leased.set()
        with self._lock:
            pending, self._unforgotten = self._unforgotten, []
        for raw in pending:
            self._forget(raw)
        for other in self.store.work_owners():
            if other != self.owner and self.store.holder(owner_lock(other)) is None:
                # First the mark, so the thread leases it still holds can be taken over by
                # whoever takes its requests (bot.runtime.lease), then the requests.
                self.store.put_blob(dead_mark(other), b"1", self.lease_ttl * 2)
                moved = self.store.return_work(other)
                if moved:
                    log.warning("replica %s stopped with %d request(s) taken; queued again",
                                other, moved)  # fmt: skip


def _yield_to_acks() -> None:
    """Run this worker thread (and the git, helm and jsonnet processes it starts, which inherit
    it) at a lower CPU priority, so on a busy machine Slack's acks, health checks and the
    listener threads go first. Linux applies a thread id's niceness to that thread alone;
    elsewhere this does nothing."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICE)
    except (AttributeError, OSError) as exc:  # not Linux, or not allowed: run as is
        log.debug("worker priority unchanged: %s", exc)


def _where(work: Work) -> str:
    if isinstance(work, Reaction):
        return f"{work.channel}/{work.item_ts}"
    if isinstance(work, Mention | ThreadReply):
        return work.key.id
    if isinstance(work, NewEnvRequest):
        return f"{work.command.channel} (new-env {work.action.name})"
    if isinstance(work, AlertNotification):
        return f"alert group {work.group_key!r}"
    return subject(work)
