"""Evaluate Jsonnet the way tk does, in worker processes with a timeout and a memory cap.

Ext vars and TLAs are Jsonnet *code*, as tk passes them (`str_code` turns a string value into code
the way tk's `--ext-str` does). Errors are go-jsonnet's own text, `file:line:col` included, raised
as JsonnetError; a run past `timeout` seconds raises EvalTimeoutError, one past its memory budget
EvalMemoryError; either way the worker is replaced and the caller is unharmed.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tools.tanka.errors import EvalCrashedError, EvalMemoryError, JsonnetError, TankaError
from tools.tanka.evaluation.implementation import chosen
from tools.tanka.evaluation.pool import EvalPool, default_pool
from tools.tanka.evaluation.reads import ReadSet
from tools.tanka.evaluation.worker import EvalReply, EvalRequest
from tools.tanka.gojson.encode import go_string
from tools.tanka.project import absolute, find_base, find_root, fs_dir

DEFAULT_TIMEOUT = 120.0
DEFAULT_MEMORY_MB = 2048
DEFAULT_MAX_STACK = 500  # go-jsonnet's default; tk changes it only for --max-stack > 0
# Which evaluator answered this process's evaluations ("go", "rust") and how many of the
# "rust" requests go-jsonnet answered ("fallback"), with the latest reasons: benches print them,
# conformance tests check that jrsonnet really answered.
ANSWERED: Counter[str] = Counter()
FALLBACKS: deque[str] = deque(maxlen=32)


def str_code(value: str) -> str:
    """tk's conversion of a string ext var / TLA to code: the Go-JSON-quoted string."""
    return go_string(value)


def jpath_for(path: Path, root: Path) -> tuple[Path, ...]:
    """tk's import path for a file, lowest precedence first; a file outside any environment
    uses its own directory as the base (as `tk tool jpath` does)."""
    try:
        base = find_base(path, root)
    except TankaError:
        base = fs_dir(path)
    return (root / "vendor", base / "vendor", root / "lib", base)


def evaluate_file(
    path: str | os.PathLike[str],
    *,
    root: Path | None = None,
    ext_vars: Mapping[str, str] | None = None,
    tlas: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    memory_mb: int = DEFAULT_MEMORY_MB,
    max_stack: int = DEFAULT_MAX_STACK,
    confine: Path | None = None,
    pool: EvalPool | None = None,
) -> Any:
    """The JSON value of a Jsonnet file (numbers as floats, as tk decodes them).

    `root` defaults to the file's project root; imports may not leave `confine` (default: root).
    """
    file = absolute(path)
    project = root if root is not None else find_root(file)
    return evaluate_snippet(
        file,
        None,
        jpath=jpath_for(file, project),
        confine=confine or project,
        ext_vars=ext_vars,
        tlas=tlas,
        timeout=timeout,
        memory_mb=memory_mb,
        max_stack=max_stack,
        pool=pool,
    )


def evaluate_snippet(
    filename: Path,
    snippet: str | None,
    *,
    jpath: Sequence[Path],
    confine: Path,
    ext_vars: Mapping[str, str] | None = None,
    tlas: Mapping[str, str] | None = None,
    trusted: Sequence[Path] = (),
    timeout: float = DEFAULT_TIMEOUT,
    memory_mb: int = DEFAULT_MEMORY_MB,
    max_stack: int = DEFAULT_MAX_STACK,
    pool: EvalPool | None = None,
    record: ReadSet | None = None,
) -> Any:
    """Evaluate `snippet` as if it were the file `filename` (None: read that file); `record`
    gathers what the evaluation read."""
    request = EvalRequest(
        filename=str(filename),
        snippet=snippet,
        confine=str(confine),
        jpath=tuple(str(p) for p in jpath),
        ext_codes=dict(ext_vars or {}),
        tla_codes=dict(tlas or {}),
        max_stack=max_stack if max_stack > 0 else DEFAULT_MAX_STACK,
        memory_mb=memory_mb,
        trusted=tuple(str(p) for p in trusted),
        record=record is not None,
        implementation=chosen(),
    )
    shown = os.path.relpath(filename, confine) if str(filename).startswith("/") else str(filename)
    try:
        reply = _run(pool or default_pool(), request, timeout=timeout, what=shown)
    except BaseException:  # a timeout, a crash: no read set
        if record is not None:
            record.add(None)
        raise
    ANSWERED[reply.evaluator] += 1
    if reply.fallback is not None:
        ANSWERED["fallback"] += 1
        FALLBACKS.append(reply.fallback)
    if record is not None:
        record.add(reply.reads)
    if reply.error is not None:
        raise JsonnetError(reply.error)
    return reply.value


def _run(pool: EvalPool, request: EvalRequest, *, timeout: float, what: str) -> EvalReply:
    """The pool's reply; a jrsonnet run that took its worker down (the memory cap, a crash) is
    run again by go-jsonnet, whose outcome is tk's. A timeout is not: go-jsonnet is slower."""
    try:
        return pool.run(request, timeout=timeout, what=what)
    except (EvalMemoryError, EvalCrashedError) as exc:
        if request.implementation != "rust":
            raise
        reply = pool.run(replace(request, implementation="go"), timeout=timeout, what=what)
        return replace(reply, fallback=f"jrsonnet's worker died: {exc}")
