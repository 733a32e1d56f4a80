"""A real origin repository (bare, on disk) for the workspace tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

IDENTITY = ["-c", "user.name=Origin Dev", "-c", "user.email=dev@example.com"]


def git(cwd: Path, *args: str, input_text: str | None = None) -> str:
    return subprocess.run(
        ["git", *IDENTITY, *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        input=input_text,
    ).stdout.strip()


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
