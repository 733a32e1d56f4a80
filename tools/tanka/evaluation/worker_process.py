"""An evaluation worker process, as the pool (tools.tanka.evaluation.pool) starts and talks to it.

A module of its own so that the socket, subprocess, pickling and sandbox modules load with the
first worker: `tanka-bot tk` evaluates in its own process (InProcessPool) and never gets here.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
from multiprocessing.connection import Connection

from tools.sandbox import scrubbed_env
from tools.tanka.errors import EvalCrashedError, EvalMemoryError, EvalTimeoutError
from tools.tanka.evaluation.worker import EvalReply, EvalRequest

STARTUP_TIMEOUT = 60.0
# Beyond the sandbox's basics: what helm/kustomize and an uninstalled checkout need.
_WORKER_VARS = ("HOME", "PYTHONPATH", "TANKA_HELM_PATH", "TANKA_KUSTOMIZE_PATH")
# Go's collector by default runs whenever the heap doubles; an evaluation makes much
# short-lived garbage over a small live heap, so letting it triple saves ~20% of evaluation time
# (Tempo: worker peak 84 -> 107 MB). GOMEMLIMIT makes it collect eagerly again as the heap nears
# a size well under the default memory budget, so big evaluations keep their headroom.
GO_RUNTIME_ENV = {"GOGC": "200", "GOMEMLIMIT": "1GiB"}
_PAGE = os.sysconf("SC_PAGE_SIZE")
_OUT_OF_MEMORY = ("out of memory", "cannot allocate memory", "memory allocation of")


class Worker:
    """One `python -m tools.tanka.evaluation.worker` process and its socket."""

    def __init__(self) -> None:
        parent_sock, child_sock = socket.socketpair()
        handle, self.stderr_path = tempfile.mkstemp(prefix="tk-eval-", suffix=".log")
        os.close(handle)
        fd = child_sock.fileno()
        self.process = subprocess.Popen(
            # -P: never import from the working directory (see lint_static.run_static_checks).
            [
                sys.executable,
                "-P",
                "-m",
                "tools.tanka.evaluation.worker",
                str(fd),
                self.stderr_path,
            ],
            pass_fds=(fd,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd="/",
            env=scrubbed_env(_worker_vars()),
        )
        child_sock.close()
        self.parent_conn: Connection = Connection(parent_sock.detach())
        if not self._started():
            self.stop()
            raise EvalCrashedError("the evaluation worker", "it did not start")

    def _started(self) -> bool:
        try:
            return bool(
                self.parent_conn.poll(STARTUP_TIMEOUT) and self.parent_conn.recv() == "ready"
            )
        except (EOFError, OSError):
            return False

    def call(self, request: EvalRequest, timeout: float, what: str) -> EvalReply:
        try:
            self.parent_conn.send(request)
        except OSError:  # it died since the last call (killed from outside): say so
            _wait(self.process, 5)
            raise self._crash_error(request, what) from None
        if not self.parent_conn.poll(timeout):
            self.stop()
            raise EvalTimeoutError(what, timeout)
        try:
            reply: EvalReply = self.parent_conn.recv()
        except (EOFError, OSError):
            _wait(self.process, 5)
            raise self._crash_error(request, what) from None
        return reply

    def _crash_error(self, request: EvalRequest, what: str) -> Exception:
        tail = self._stderr_tail()
        self.stop()
        # Go's words, then Rust's (jrsonnet's allocator aborts with "memory allocation of N
        # bytes failed" when the cap refuses it).
        if any(text in tail for text in _OUT_OF_MEMORY):
            return EvalMemoryError(what, request.memory_mb)
        first = next((line for line in tail.splitlines() if "fatal error" in line), "")
        code = self.process.returncode
        return EvalCrashedError(what, first.strip() or f"worker exit code {code}")

    def _stderr_tail(self) -> str:
        try:
            with open(self.stderr_path, "rb") as handle:
                return handle.read(64 * 1024).decode("utf-8", errors="replace")
        except OSError:
            return ""

    def resident_bytes(self) -> int:
        """The process's resident memory now (0 when it cannot be read: it died)."""
        try:
            with open(f"/proc/{self.process.pid}/statm", "rb") as handle:
                return int(handle.read().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            return 0

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        _wait(self.process, 10)
        self.parent_conn.close()
        with contextlib.suppress(OSError):
            os.unlink(self.stderr_path)


def _worker_vars() -> dict[str, str]:
    passed = {k: v for k, v in os.environ.items() if k in _WORKER_VARS}
    return {**passed, **GO_RUNTIME_ENV}


def _wait(process: subprocess.Popen[bytes], seconds: float) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(seconds)
