"""The work process: `serve` runs its turns in a second process.

Why: one Python process runs one thread at a time. A turn (the model's SDK, git's processes,
Slack posts, renders) holding the interpreter delays the acknowledgements Slack waits for: in a
burst of 500 events with 50 mentions, acks waited 340-380 ms at the 99th percentile while the
mentions' turns ran, against ~60 ms for a Bolt app that only acks. The serving process only
verifies, triages and queues (bot.runtime.admission); this process takes the queue, runs the
turns, keeps the repo caches (spare checkouts, base renders) and sweeps idle sessions, at a
lower CPU priority, so the kernel runs the acks first.

The state both use is in Redis when it is set. Without it, the serving process keeps it in its
memory (the store, the guardrails' records, the audit log, the web view's history: `Shared`)
and serves it to this process over a local socket (bot.store.remote): a restart of this
process loses nothing, and one of the serving process loses what it lost before, everything.

The serving process starts it, starts it again if it dies (what it had taken is queued again by
the owner lease, as for a dead replica), and asks it over a pipe for its readiness (/readyz)
and its metrics (merged into /metrics). A second pipe tells the serving process of each bot
message the work process indexes, so a reaction on it is still placed in its thread while Redis
is down (bot.runtime.triage). If the serving process dies, this one exits at once: a
replica is both or neither.
"""

from __future__ import annotations

import gc
import itertools
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized
from typing import Protocol, cast

from bot.config import ConfigError, Settings
from bot.domain.thread import ThreadKey
from bot.dumpable import not_dumpable
from bot.runtime.admission import WORKER_NICE, Stamp
from bot.store.base import Store
from bot.store.guard_store import GuardStore
from bot.store.history import History
from bot.store.remote import Address, Channel, Host
from bot.telemetry.audit_log import AuditStore
from bot.telemetry.logs import configure_service_logging

log = logging.getLogger(__name__)

ANSWER_WITHIN = 2.0  # seconds the work process has to answer a question on the pipe
FRESH = 0.5  # seconds an answer serves further questions
# Seconds an answer still stands when the work process, alive, does not answer in time: it runs
# at the lowest CPU priority, and a burst of acks may keep it off the CPU for a moment.
SLOW_GRACE = 30.0
BACKOFF = (1.0, 2.0, 5.0, 10.0, 30.0)  # seconds before each successive restart
STEADY = 60.0  # a process that lived this long resets the backoff
PARENT_GONE = 70  # exit code when the serving process went away


Remember = Callable[[str, str, ThreadKey, float], None]


class Working(Protocol):
    """The service running in the work process (bot.app.Service)."""

    def problem(self) -> str | None: ...

    def notes(self) -> str: ...

    def metrics(self) -> bytes: ...

    def stop(self, timeout: float) -> bool: ...


class Start(Protocol):
    """Builds the work process's service and starts its jobs (bot.app.start_work); its
    messages indexed are told to `on_index`, its running requests counted in `busy`."""

    def __call__(
        self, settings: Settings, *, socket_mode: bool, sweep_interval: float,
        busy: Synchronized[int], heard: Stamp, on_index: Remember, state: Address | None,
    ) -> Working: ...  # fmt: skip


@dataclass(frozen=True)
class HealthReport:
    """The work process's answer on the pipe."""

    problem: str | None  # why it is not ready, or None
    notes: str = ""  # /readyz's lines on optional parts that fail
    metrics: bytes = b""  # Prometheus text


@dataclass(frozen=True)
class Launch:
    """What the work process is started with (pickled into it; `start` by reference)."""

    settings: Settings
    socket_mode: bool
    sweep_interval: float
    log_level: int
    start: Start
    state: Address | None = None  # the serving process's `Shared`, without Redis


@dataclass(frozen=True)
class Shared:
    """The state a replica's two processes share: Redis's, or the serving process's memory."""

    store: Store
    guards: GuardStore
    audit: AuditStore
    history: History | None  # only with the web view


def hosted(state: Shared) -> Host:
    """The serving process's memory state, served to its work process (to start)."""
    objects: dict[str, object] = {"store": state.store, "guards": state.guards,
                                  "audit": state.audit}  # fmt: skip
    if state.history is not None:
        objects["history"] = state.history
    return Host(objects)


def reach(address: Address, *, history: bool) -> Shared:
    """The work process's view of the serving process's `hosted` state."""
    channel = Channel(address)
    return Shared(
        cast("Store", channel.remote("store")),
        cast("GuardStore", channel.remote("guards")),
        cast("AuditStore", channel.remote("audit")),
        cast("History", channel.remote("history")) if history else None,
    )


class WorkProcess:
    """The serving process's handle on its work process."""

    def __init__(self, launch: Launch, *, remember: Remember) -> None:
        """`remember(channel, ts, thread, deadline)`: the serving process's store learning of a
        bot message the work process indexed."""
        self._remember = remember
        self._context = multiprocessing.get_context("spawn")  # no fork of a threaded process
        self._launch = launch
        # Requests the work process is running: the serving process reads it to tell an asker
        # "queued" only when every worker is busy.
        self.busy: Synchronized[int] = self._context.Value("i", 0)
        # When the latest Slack event arrived: written on every ack, so without a lock (one
        # aligned double); its workers start no turn during a burst (bot.runtime.admission).
        self.heard: Stamp = self._context.Value("d", 0.0, lock=False)
        self._lock = threading.Lock()  # one question at a time on the pipe
        self._process: multiprocessing.process.BaseProcess | None = None
        self._pipe: Connection | None = None
        self._questions = itertools.count(1)
        self._stopping = threading.Event()
        self._last_exit: int | None = None
        # /readyz asks for the problem, then the notes: one round trip on the pipe serves both.
        self._answered: tuple[float, HealthReport] | None = None

    def start(self) -> None:
        self._spawn()
        threading.Thread(target=self._supervise, name="work-process", daemon=True).start()

    def problem(self) -> str | None:
        """Why the work process is not ready (it names its own part), or None."""
        return self._ask().problem

    def notes(self) -> str:
        """Its optional parts that fail (MCP servers), for /readyz's 200 answer."""
        return self._ask().notes

    def metrics(self) -> bytes:
        """The work process's metrics (Prometheus text); empty when it cannot answer."""
        return self._ask().metrics

    def stop(self, timeout: float) -> bool:
        """Let running turns finish (SIGTERM, up to `timeout` s), then kill; whether they did."""
        self._stopping.set()
        process = self._process
        if process is None:
            return True
        if process.is_alive():
            process.terminate()
        process.join(timeout)
        if process.is_alive():
            process.kill()
            process.join(5)
            return False
        return process.exitcode == 0

    def _spawn(self) -> None:
        mine, theirs = self._context.Pipe()
        heard, told = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=run,
            args=(self._launch, theirs, told, self.busy, self.heard),
            name="tanka-bot-work",
        )
        process.start()
        for end in (theirs, told):
            end.close()  # only the work process holds its ends: its death is EOF here
        with self._lock:
            self._process, self._pipe = process, mine
        threading.Thread(target=self._hear, args=(heard,), name="work-hints", daemon=True).start()
        log.info("work process %d started", process.pid)

    def _hear(self, pipe: Connection) -> None:
        """The bot messages the work process indexes, into this process's store's memory."""
        with pipe:
            while True:
                try:
                    channel, ts, thread, deadline = pipe.recv()
                except (EOFError, OSError):
                    return  # that work process is gone; its successor has its own pipe
                self._remember(channel, ts, ThreadKey.parse(thread), deadline)

    def _supervise(self) -> None:
        restarts = 0
        while not self._stopping.is_set():
            process = self._process
            if process is None:
                return
            started = time.monotonic()
            while process.exitcode is None and not self._stopping.is_set():
                process.join(1.0)
            if self._stopping.is_set():
                return
            self._last_exit = process.exitcode
            restarts = 0 if time.monotonic() - started > STEADY else restarts + 1
            delay = BACKOFF[min(restarts, len(BACKOFF) - 1)]
            log.error("the work process exited (code %s); starting it again in %.0f s",
                      process.exitcode, delay)  # fmt: skip
            if self._stopping.wait(delay):
                return
            self._spawn()

    def _ask(self) -> HealthReport:
        with self._lock:
            last = self._answered
            if last is not None and time.monotonic() - last[0] < FRESH:
                return last[1]
            status = self._question()
            if status is None:  # alive, but slow to be scheduled (it yields the CPU to acks)
                if last is not None and time.monotonic() - last[0] < SLOW_GRACE:
                    return last[1]  # its last word stands for a while: no readiness flap
                return HealthReport(f"work process: no answer within {ANSWER_WITHIN:.0f} s")
            self._answered = (time.monotonic(), status)
            return status

    def _question(self) -> HealthReport | None:
        """One question on the pipe (the caller holds the lock); None when no answer came in
        time from a process that is alive."""
        process, pipe = self._process, self._pipe
        if process is None or pipe is None or not process.is_alive():
            return HealthReport(f"work process: not running (last exit code {self._last_exit}); "
                          "starting it again")  # fmt: skip
        question = next(self._questions)
        try:
            pipe.send(question)
            deadline = time.monotonic() + ANSWER_WITHIN
            while pipe.poll(max(0.0, deadline - time.monotonic())):
                answer, status = pipe.recv()
                if answer == question:  # an older answer, late, is skipped
                    return cast("HealthReport", status)
        except (OSError, EOFError) as exc:
            return HealthReport(f"work process: the pipe to it failed ({type(exc).__name__})")
        return None


# --- the work process itself --------------------------------------------------------------------


def _yield_to_serving() -> None:
    """Run this process (its threads and the git, helm and jsonnet processes they start inherit
    it) in Linux's idle scheduling class: on a core the serving process wants, it runs only
    when that process waits. Niceness alone still let a burst's turns take a tenth of the core
    and stretch the acks. In a container the class counts among the container's own processes.
    Elsewhere (or where it is refused) the lower niceness is what remains."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, WORKER_NICE)
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError) as exc:  # not Linux, or not allowed: as far as it went
        log.debug("work process priority: %s", exc)


def run(
    launch: Launch, pipe: Connection, hints: Connection, busy: Synchronized[int], heard: Stamp
) -> None:
    """The work process's main: build the service, take the work queue, answer the pipe."""
    not_dumpable()
    configure_service_logging(launch.log_level)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the serving process, which
    stopping = threading.Event()  # stops this one with SIGTERM once it stopped taking requests
    signal.signal(signal.SIGTERM, lambda _signum, _frame: stopping.set())
    _yield_to_serving()
    built: list[Working] = []
    threading.Thread(target=_answer, args=(pipe, built), name="pipe", daemon=True).start()
    settings = launch.settings
    try:
        service = launch.start(settings, socket_mode=launch.socket_mode,
                               sweep_interval=launch.sweep_interval, busy=busy, heard=heard,
                               on_index=_teller(hints), state=launch.state)  # fmt: skip
    except ConfigError as exc:  # Slack unreachable, say: the supervisor tries again later
        log.error("the work process could not start: %s", exc)
        raise SystemExit(2) from None
    built.append(service)
    gc.collect()
    gc.freeze()  # as in the serving process (bot.app.serve)
    log.info("work process ready: %d workers", settings.workers)
    stopping.wait()
    finished = service.stop(settings.turn_timeout)
    log.info("work process stopped (%s)",
             "all turns finished" if finished else "turns still running were cut off")  # fmt: skip
    raise SystemExit(0 if finished else 1)


def _teller(hints: Connection) -> Remember:
    lock = threading.Lock()  # turns index from several threads; a pipe takes one at a time

    def tell(channel: str, ts: str, thread: ThreadKey, deadline: float) -> None:
        try:
            with lock:
                hints.send((channel, ts, thread.id, deadline))
        except OSError:  # the serving process is gone: `_answer` ends this process
            pass

    return tell


def _answer(pipe: Connection, built: list[Working]) -> None:
    """Answer the serving process's questions; when it is gone, go too, at once (a failed send
    counts: it may go while an answer is being made)."""
    try:
        while True:
            question = pipe.recv()
            if not built:
                pipe.send((question, HealthReport("work process: starting")))
                continue
            pipe.send((question, _status(built[0])))
    except (EOFError, OSError):
        log.error("the serving process went away; the work process exits")
        os._exit(PARENT_GONE)


def _status(service: Working) -> HealthReport:
    try:
        return HealthReport(service.problem(), service.notes(), service.metrics())
    except Exception as exc:  # never leave the question unanswered
        log.exception("could not answer the serving process")
        return HealthReport(f"work process: {type(exc).__name__}")
