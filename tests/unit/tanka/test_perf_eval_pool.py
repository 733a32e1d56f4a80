"""Worker processes run Go's collector with the pool's settings, whatever the caller's env."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tools.tanka.evaluation.evaluate import evaluate_file
from tools.tanka.evaluation.pool import EvalPool, InProcessPool
from tools.tanka.evaluation.worker_process import GO_RUNTIME_ENV


def _children_environ() -> list[dict[str, str]]:
    """The environments of this process's live children, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue  # gone meanwhile, or not ours to read
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid():
            pairs = (item.split(b"=", 1) for item in environ.split(b"\0") if b"=" in item)
            found.append({k.decode(): v.decode() for k, v in pairs})
    return found


def test_workers_get_the_go_gc_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOGC", "off")  # a caller's own setting must not reach the workers
    (tmp_path / "jsonnetfile.json").write_text("{}")
    (tmp_path / "main.jsonnet").write_text("{ a: [x * 2 for x in std.range(1, 1000)] }")
    pool = EvalPool(size=1)
    try:
        value = evaluate_file(tmp_path / "main.jsonnet", pool=pool)
        workers = [env for env in _children_environ() if "GOMEMLIMIT" in env]
    finally:
        pool.close()
    assert value["a"][-1] == 2000.0
    assert workers  # other tests' pools may have workers too: all must carry the settings
    assert all({k: env[k] for k in GO_RUNTIME_ENV} == GO_RUNTIME_ENV for env in workers)


def test_prestart_starts_the_missing_workers_in_the_background(tmp_path: Path) -> None:
    pool = EvalPool(size=2)
    try:
        pool.prestart()
        deadline = time.monotonic() + 60
        while pool.workers() < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pool.workers() == 2
        pool.prestart()  # all running: nothing more is started
        (tmp_path / "jsonnetfile.json").write_text("{}")
        (tmp_path / "main.jsonnet").write_text("{ a: 1 }")
        assert evaluate_file(tmp_path / "main.jsonnet", pool=pool) == {"a": 1.0}
        assert pool.workers() == 2
    finally:
        pool.close()
    in_process = InProcessPool()
    in_process.prestart()
    assert in_process.workers() == 0
    assert len(in_process._workers) == 0


def _pids(pool: EvalPool) -> set[int]:
    return {w.process.pid for w in pool._workers}


def test_a_worker_is_replaced_when_it_has_grown_not_after_a_count_of_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "jsonnetfile.json").write_text("{}")
    (tmp_path / "main.jsonnet").write_text("{ a: 1 }")
    pool = EvalPool(size=1)
    try:
        evaluate_file(tmp_path / "main.jsonnet", pool=pool)
        first = _pids(pool)
        for _ in range(250):  # more calls than the old fixed recycling allowed
            evaluate_file(tmp_path / "main.jsonnet", pool=pool)
        assert _pids(pool) == first
        (worker,) = pool._workers
        assert worker.resident_bytes() > 10 * 1024 * 1024  # an interpreter and two bindings
        monkeypatch.setattr("tools.tanka.evaluation.pool.RECYCLE_RSS_BYTES", 1024 * 1024)
        evaluate_file(tmp_path / "main.jsonnet", pool=pool)  # grown past the limit: let go
        assert pool.workers() == 0
        assert evaluate_file(tmp_path / "main.jsonnet", pool=pool) == {"a": 1.0}
        assert _pids(pool).isdisjoint(first)
    finally:
        pool.close()
