"""The cache maintenance job against a real origin, by hand and from a real scheduler."""

from __future__ import annotations

import logging
import shutil
import threading
from pathlib import Path

import pytest

from bot.runtime.scheduler import CacheMaintenance
from bot.workspace.repo_cache import RepoCache
from tests.unit.git.conftest import commit_file, git


def spares(cache: RepoCache) -> list[Path]:
    return [p for p in cache.spares_dir.iterdir() if not p.name.startswith(".")]


def test_a_run_fetches_new_commits_and_makes_spares(
    origin: Path, dev_clone: Path, tmp_path: Path
) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    job = CacheMaintenance(cache, base_branch="main", interval=0.0, spares=2)
    assert job.run_once()
    first = cache.commit_of("main")
    assert len(spares(cache)) == 2

    new = commit_file(dev_clone, "lib/app.libsonnet", "{ image: 'app:2' }\n", "bump")
    assert job.run_once()
    assert cache.commit_of("main") == new != first
    assert len(spares(cache)) == 2  # topped up, not doubled

    checkout = cache.start("s1", base_branch="main", branch="tanka-bot/s1")
    assert (checkout.root / "lib/app.libsonnet").read_text() == "{ image: 'app:2' }\n"
    assert len(spares(cache)) == 1  # the session took a spare


def test_a_failing_run_is_remembered_and_the_mirror_kept(
    origin: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    job = CacheMaintenance(cache, base_branch="main", interval=0.0, spares=0)
    assert job.run_once()
    kept = cache.commit_of("main")
    shutil.rmtree(origin)
    with caplog.at_level(logging.WARNING, logger="bot.runtime.scheduler"):
        assert not job.run_once()
    assert job.last_error is not None
    assert "git fetch failed" in job.last_error
    assert "will retry" in caplog.text
    assert cache.commit_of("main") == kept
    assert cache.problem() is None  # still usable: sessions start from the last good fetch


def test_the_scheduler_runs_it_in_the_background(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    job = CacheMaintenance(cache, base_branch="main", interval=3600.0, spares=1)
    done = threading.Event()
    run = job.run_once

    def observed() -> bool:
        ok = run()
        done.set()
        return ok

    job.run_once = observed  # type: ignore[method-assign]
    job.start()
    try:
        assert done.wait(timeout=30), "the first run did not happen"
    finally:
        job.shutdown()
    assert job.runs == 1
    assert job.last_error is None
    assert len(spares(cache)) == 1
    assert git(cache.path, "rev-parse", "--is-bare-repository").strip() == "true"


def test_readiness_waits_for_the_fetch_alone_and_each_new_base_commit_is_prepared_once(
    origin: Path, dev_clone: Path, tmp_path: Path
) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    calls: list[tuple[str, bool, int, bool]] = []
    job = CacheMaintenance(cache, base_branch="main", interval=0.0, spares=2)

    def prepare(repository: Path, commit: str, render: bool) -> None:
        assert repository == cache.path
        calls.append((commit, render, len(spares(cache)), job.fetched.is_set()))

    job.prepare = prepare
    assert not job.fetched.is_set()
    assert job.run_once()
    first = cache.commit_of("main")
    # Ready from the fetch on; one spare made before the base commit is prepared, one after.
    assert calls == [(first, False, 1, True), (first, True, 1, True)]
    assert len(spares(cache)) == 2
    assert job.run_once()
    assert len(calls) == 2  # the same base commit: nothing to prepare
    new = commit_file(dev_clone, "lib/app.libsonnet", "{ image: 'app:3' }\n", "bump")
    assert job.run_once()
    assert [c[:2] for c in calls[2:]] == [(new, False), (new, True)]


def test_readiness_does_not_wait_for_a_fetch_that_failed(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    shutil.rmtree(origin)
    job = CacheMaintenance(cache, base_branch="main", interval=0.0, spares=1)
    assert not job.run_once()
    assert job.fetched.is_set()  # /readyz says what is wrong: the repo cache's own problem
    assert cache.problem() is not None


def test_a_failed_preparation_is_reported_and_tried_again(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    attempts: list[str] = []

    def prepare(repository: Path, commit: str, render: bool) -> None:
        attempts.append(commit)
        if len(attempts) == 1:
            raise OSError("disk full")

    job = CacheMaintenance(cache, base_branch="main", interval=0.0, spares=0, prepare=prepare)
    assert not job.run_once()
    assert job.last_error == "disk full"
    assert job.fetched.is_set()  # readiness does not wait for it; the error is reported
    assert job.run_once()
    assert job.last_error is None
    assert len(attempts) == 3  # failed, then tree and index, then renders
