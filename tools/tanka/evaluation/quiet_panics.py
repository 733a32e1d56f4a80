"""rjsonnet's panics, kept off standard error.

rjsonnet turns a value it cannot convert for a native function (a field that fails, a value past
the stack) into a Rust panic rather than an error. pyo3 raises it as PanicException, which the
evaluation reads as "go-jsonnet answers" like any jrsonnet error - but Rust's panic hook has
already printed `thread '<unnamed>' panicked at ...` on file descriptor 2, where tk prints
nothing (`tanka-bot tk show` of an environment whose guarded std call meets an error).

So while jrsonnet runs in a process whose descriptor 2 is the user's (`tanka-bot tk`), it goes
to a file; afterwards what was written there goes back to standard error without the panic
messages (from the `thread ... panicked at` line to the `note:` line that ends one, with or
without a backtrace). Everything else - jrsonnet's `TRACE:` lines, another thread's writes - is
written in the same order, only later. About 35 us an evaluation.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import IO

_PANIC = re.compile(rb"\n?thread '[^'\n]*' panicked at [^\n]*\n.*?^note: [^\n]*\n", re.S | re.M)
# An evaluation worker's descriptor 2 is a log the parent reads when the worker dies (worker.py):
# panics there harm no one, and a crash's last words must stay in it.
stderr_is_a_log = [False]
_lock = threading.Lock()  # one descriptor 2 per process
_capture: list[IO[bytes]] = []  # the file it goes to, made once


@contextlib.contextmanager
def panics_unprinted() -> Iterator[None]:
    if stderr_is_a_log[0]:
        yield
        return
    with _lock:
        if not _capture:
            _capture.append(tempfile.TemporaryFile())  # noqa: SIM115 - kept for the process
        capture = _capture[0]
        capture.seek(0)
        capture.truncate()
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            _write_all(_PANIC.sub(b"", capture.read()))


def _write_all(data: bytes) -> None:
    while data:
        written = os.write(2, data)
        data = data[written:]
