"""Several environments render on the pool's workers at once, with sequential results: same
order, and the error of the first failing environment in that order."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.tanka.env.loader import EvalSettings
from tools.tanka.errors import JsonnetError
from tools.tanka.evaluation.pool import EvalPool
from tools.tanka.export.run import export
from tools.tanka.pipeline.render import in_parallel, render_entrypoint

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tanka_diff"


@pytest.fixture(scope="module")
def pool() -> Iterator[EvalPool]:
    pool = EvalPool(size=2)
    yield pool
    pool.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "repo", root)
    return root


def _break(repo: Path, env: str) -> None:
    (repo / "environments" / env / "main.jsonnet").write_text(f"error 'broken {env}'\n")


def test_export_of_several_environments_matches_one_at_a_time(
    repo: Path, tmp_path: Path, pool: EvalPool
) -> None:
    envs = [repo / "environments/prod", repo / "environments/dev"]
    parallel, single = tmp_path / "parallel", tmp_path / "single"
    written = export(parallel, envs, settings=EvalSettings(pool=pool))
    one = EvalPool(size=1)
    try:
        export(single, envs, settings=EvalSettings(pool=one))
    finally:
        one.close()
    assert len(written) > 2
    for file in single.rglob("*"):
        twin = parallel / file.relative_to(single)
        assert twin.is_file() == file.is_file()
        if file.is_file():
            assert twin.read_bytes() == file.read_bytes()


def test_export_raises_the_first_failing_environment_in_order(
    repo: Path, tmp_path: Path, pool: EvalPool
) -> None:
    _break(repo, "dev")
    envs = [repo / "environments/prod", repo / "environments/dev"]
    with pytest.raises(JsonnetError, match="broken dev"):
        export(tmp_path / "out1", envs, settings=EvalSettings(pool=pool))
    _break(repo, "prod")
    with pytest.raises(JsonnetError, match="broken prod"):
        export(tmp_path / "out2", envs, settings=EvalSettings(pool=pool))
    assert not (tmp_path / "out2").exists() or not any((tmp_path / "out2").iterdir())


def test_inline_environments_keep_their_order(repo: Path, pool: EvalPool) -> None:
    envs = render_entrypoint(
        repo / "environments/multi/main.jsonnet", settings=EvalSettings(pool=pool)
    )
    assert [e.name for e in envs] == ["multi/blue", "multi/green"]
    assert [e.manifests[0]["metadata"]["namespace"] for e in envs] == ["blue", "green"]


def test_in_parallel_runs_items_at_once_and_keeps_order(pool: EvalPool) -> None:
    both_started = threading.Barrier(2, timeout=10)

    def action(item: int) -> int:
        both_started.wait()  # only returns when two items run at the same time
        return item * 10

    assert in_parallel(action, [1, 2], EvalSettings(pool=pool)) == [10, 20]
