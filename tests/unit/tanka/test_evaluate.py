"""Evaluation in worker processes: values, Jsonnet errors, and hostile input that must not hurt."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tools.tanka.errors import EvalCrashedError, EvalMemoryError, EvalTimeoutError, JsonnetError
from tools.tanka.evaluation.evaluate import evaluate_file, str_code
from tools.tanka.evaluation.pool import EvalPool
from tools.tanka.evaluation.worker import EvalRequest
from tools.tanka.evaluation.worker_process import Worker

# Every test here runs on go-jsonnet and on jrsonnet (conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tanka"


@pytest.fixture(scope="module")
def pool() -> Iterator[EvalPool]:
    pool = EvalPool(size=2)
    yield pool
    pool.close()


def _project(tmp_path: Path, main: str) -> Path:
    env = tmp_path / "environments" / "e"
    env.mkdir(parents=True)
    (tmp_path / "jsonnetfile.json").write_text("{}")
    (env / "main.jsonnet").write_text(main)
    return env / "main.jsonnet"


def test_value_numbers_are_floats_and_ext_vars_tlas_are_code(
    tmp_path: Path, pool: EvalPool
) -> None:
    main = _project(tmp_path, "function(n) { n: n, s: std.extVar('s'), i: 3 }")
    value = evaluate_file(main, ext_vars={"s": str_code("<x>")}, tlas={"n": "1 + 1"}, pool=pool)
    assert value == {"n": 2.0, "s": "<x>", "i": 3.0}
    assert isinstance(value["i"], float)


def test_jsonnet_error_is_go_jsonnets_text_with_location(tmp_path: Path, pool: EvalPool) -> None:
    main = _project(tmp_path, "{\n  a: error 'boom',\n}\n")
    with pytest.raises(JsonnetError) as info:
        evaluate_file(main, pool=pool)
    text = str(info.value)
    assert text.startswith("RUNTIME ERROR: boom")
    assert f"{main}:2:6-18" in text


def test_importstr_etc_passwd_is_refused(pool: EvalPool) -> None:
    main = FIXTURES / "hostile" / "environments" / "leak" / "main.jsonnet"
    with pytest.raises(JsonnetError) as info:
        evaluate_file(main, pool=pool)
    assert '"/etc/passwd" refused' in str(info.value)
    assert "root:" not in str(info.value)


def test_relative_escape_is_refused_with_path(tmp_path: Path, pool: EvalPool) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "outside").write_text("secret")
    main = _project(project, "importstr '../../../outside'")
    with pytest.raises(JsonnetError, match=rf"refused: {tmp_path}/outside is outside the project"):
        evaluate_file(main, pool=pool)


def test_import_cycle_is_an_error_not_a_hang(tmp_path: Path, pool: EvalPool) -> None:
    main = _cycle(tmp_path)
    with pytest.raises(JsonnetError, match="max stack frames exceeded"):
        evaluate_file(main, pool=pool, timeout=30)


def _cycle(tmp_path: Path) -> Path:
    main = _project(tmp_path, "(import 'a.libsonnet') + 1")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.libsonnet").write_text("(import 'b.libsonnet') + 1")
    (lib / "b.libsonnet").write_text("(import 'a.libsonnet') + 1")
    return main


def test_infinite_recursion_is_a_stack_error(tmp_path: Path, pool: EvalPool) -> None:
    main = _project(tmp_path, "local f(x) = f(x + 1) + 1; f(0)")
    with pytest.raises(JsonnetError) as info:
        evaluate_file(main, pool=pool, max_stack=200)
    assert str(info.value).startswith("RUNTIME ERROR: max stack frames exceeded.")


def test_memory_bomb_hits_the_cap_and_the_worker_is_replaced(
    tmp_path: Path, pool: EvalPool
) -> None:
    main = _project(tmp_path, "std.length(std.makeArray(200000000, function(i) [i, i, i]))")
    with pytest.raises(EvalMemoryError, match=r"ran out of memory \(limit 256 MB\)"):
        evaluate_file(main, pool=pool, memory_mb=256, timeout=60)
    ok = _project(tmp_path / "again", "{ fine: true }")
    assert evaluate_file(ok, pool=pool) == {"fine": True}


def test_never_ending_evaluation_times_out_and_pool_recovers(
    tmp_path: Path, pool: EvalPool
) -> None:
    main = _project(tmp_path, "local f(n) = if n == 0 then 0 else f(n - 1) tailstrict; f(1e15)")
    with pytest.raises(EvalTimeoutError, match="did not finish within 1 seconds"):
        evaluate_file(main, pool=pool, timeout=1)
    ok = _project(tmp_path / "again", "{ n: 1 }")
    assert evaluate_file(ok, pool=pool) == {"n": 1.0}
    assert pool.workers() <= pool.size


def test_parallel_evaluations_share_the_pool(tmp_path: Path, pool: EvalPool) -> None:
    mains = [_project(tmp_path / str(i), f"{{ i: {i} }}") for i in range(6)]
    with ThreadPoolExecutor(max_workers=4) as executor:
        values = list(executor.map(lambda m: evaluate_file(m, pool=pool), mains))
    assert values == [{"i": float(i)} for i in range(6)]


def test_a_worker_that_died_while_idle_is_a_crash_error_not_a_broken_pipe(
    tmp_path: Path,
) -> None:
    worker = Worker()
    try:
        worker.process.kill()  # e.g. the kernel's OOM killer, between two calls
        worker.process.wait()
        with pytest.raises(EvalCrashedError, match="crashed the evaluator"):
            worker.call(EvalRequest("x.jsonnet", "{}", str(tmp_path), ()), 10.0, "x.jsonnet")
    finally:
        worker.stop()
