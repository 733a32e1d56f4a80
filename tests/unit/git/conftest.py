"""A real origin repository (bare, on disk) for the workspace tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.git import git as shared_git


def git(cwd: Path, *args: str, input_text: str | None = None) -> str:
    """tests.git.git, stripped: these tests compare single values (ids, names)."""
    return shared_git(cwd, *args, input_text=input_text).strip()


def commit_file(work: Path, rel: str, content: str, message: str) -> str:
    path = work / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", message)
    git(work, "push", "-q", "origin", "HEAD:main")
    return git(work, "rev-parse", "HEAD")


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare repository with branch main holding two commits."""
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    work = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(work))
    commit_file(work, "environments/prod/main.jsonnet", "{ replicas: 3 }\n", "add prod")
    commit_file(work, "lib/app.libsonnet", "{ image: 'app:1' }\n", "add lib")
    return bare


@pytest.fixture
def dev_clone(origin: Path, tmp_path: Path) -> Path:
    """The developer clone that pushed to origin (to push more commits in a test)."""
    return tmp_path / "dev"
