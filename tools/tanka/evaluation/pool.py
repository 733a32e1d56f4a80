"""A pool of evaluation worker processes with per-call timeouts and crash recovery.

go-jsonnet cannot be interrupted and a runaway evaluation can take all memory, so evaluations
never run in the caller's process. Each worker is a `python -m tools.tanka.evaluation.worker`
subprocess (not a multiprocessing child: no fork in a threaded bot, no re-import of the caller's
`__main__`) serving one request at a time over a socket pair, with a scrubbed environment so no
token reaches Jsonnet, helm or kustomize. A call that runs past its timeout gets its worker
killed; a worker that dies (memory cap, Go fatal error, signal) is reported with the reason read
from its stderr; either way a fresh worker takes its place and the caller gets a clear error.
Callers run calls in parallel from threads; the pool hands each thread an idle worker.

`InProcessPool` is the same interface without the process: for a person running `tanka-bot tk`
on their own checkout, as `tk` itself evaluates (see its docstring for what that gives up).
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
from typing import TYPE_CHECKING

from tools.tanka.evaluation.worker import EvalReply, EvalRequest, evaluate

if TYPE_CHECKING:
    from tools.tanka.evaluation.worker_process import Worker

# A worker grown past this much resident memory is replaced after its call: go-jsonnet's heap
# is returned to the system slowly if at all, so a worker that once evaluated something big
# stays big. Replacing by size rather than every N calls: a new worker costs an interpreter,
# both bindings and their warm-up (about 0.2 s of CPU), which every 200 calls of a 2,000-
# environment change came to 40% of its evaluation time.
RECYCLE_RSS_BYTES = 256 * 1024 * 1024


class EvalPool:
    """Up to `size` workers, started on demand and replaced when they die."""

    def __init__(self, size: int | None = None) -> None:
        self.size = max(1, size or os.cpu_count() or 1)
        self._idle: queue.LifoQueue[Worker | None] = queue.LifoQueue()
        for _ in range(self.size):
            self._idle.put(None)  # a slot; the worker starts on first use
        self._lock = threading.Lock()
        self._workers: set[Worker] = set()
        self._closed = False

    def run(self, request: EvalRequest, *, timeout: float, what: str) -> EvalReply:
        """Evaluate on an idle worker; raises EvalTimeoutError / EvalMemoryError / ..."""
        worker = self._acquire()
        try:
            reply = worker.call(request, timeout, what)
        except BaseException:
            self._release(worker, broken=True)
            raise
        self._release(worker, broken=worker.resident_bytes() > RECYCLE_RSS_BYTES)
        return reply

    def prestart(self) -> None:
        """Start the workers not running yet, in the background: a caller that will evaluate
        soon overlaps their start (an interpreter and the binding each) with its own work."""
        if self._closed or self.workers() >= self.size:
            return

        def start() -> None:
            try:
                worker = self._acquire()
            except Exception:  # the evaluation that needs the worker reports the failure
                return
            self._release(worker, broken=False)

        for _ in range(self.size - self.workers()):
            threading.Thread(target=start, name="eval-prestart", daemon=True).start()

    def _acquire(self) -> Worker:
        if self._closed:
            raise RuntimeError("the evaluation pool is closed")
        worker = self._idle.get()
        if worker is None or not worker.alive():
            if worker is not None:
                self._forget(worker)
            try:
                from tools.tanka.evaluation.worker_process import Worker  # noqa: PLC0415 - tk start-up: 15 ms, 33 modules (socket, subprocess, multiprocessing, the sandbox)

                worker = Worker()
            except BaseException:
                self._idle.put(None)
                raise
            with self._lock:
                self._workers.add(worker)
        return worker

    def _release(self, worker: Worker, *, broken: bool) -> None:
        if broken or self._closed:
            self._forget(worker)
            self._idle.put(None)
        else:
            self._idle.put(worker)

    def _forget(self, worker: Worker) -> None:
        worker.stop()
        with self._lock:
            self._workers.discard(worker)

    def workers(self) -> int:
        """How many worker processes are running now."""
        with self._lock:
            return sum(1 for w in self._workers if w.alive())

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._workers)
            self._workers.clear()
        for worker in workers:
            worker.stop()


class InProcessPool(EvalPool):
    """Evaluations in the calling process, one at a time: no worker to start.

    What the workers add is lost here: the timeout (go-jsonnet cannot be interrupted), the
    memory cap, the scrubbed environment (helm and kustomize see the caller's variables) and
    parallelism (the binding holds the GIL while it evaluates). Right for `tanka-bot tk` run by a
    person on their own checkout, like `tk`; never for the agent or the Slack service, which
    evaluate what a model wrote. Import confinement is the import callback's, so it still holds.
    """

    def __init__(self) -> None:
        super().__init__(1)
        self._one_at_a_time = threading.Lock()
        # Before the command starts threads to render in: they evaluate with jrsonnet too.
        from tools.tanka.evaluation.rust_eval import allow_a_large_stack  # noqa: PLC0415 - tk start-up: loaded with the engine

        allow_a_large_stack()

    def run(self, request: EvalRequest, *, timeout: float, what: str) -> EvalReply:
        del timeout, what  # see the class docstring: nothing can stop a running evaluation
        with self._one_at_a_time:
            return evaluate(request)

    def workers(self) -> int:
        return 0

    def prestart(self) -> None:
        """Nothing to start."""


_DEFAULT: EvalPool | None = None
_DEFAULT_LOCK = threading.Lock()


def default_pool() -> EvalPool:
    """The process-wide pool, sized to the CPUs; closed at interpreter exit."""
    global _DEFAULT  # noqa: PLW0603 - one pool per process, created lazily
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = EvalPool()
            atexit.register(_DEFAULT.close)
        return _DEFAULT
