"""Upstream repositories for jb tests: local bare repos served under their https:// names.

`srv/<host>/<user>/<repo>.git` is reachable as `https://<host>/<user>/<repo>.git` through one
`url.file://<srv>/.insteadOf=https://` rule given to the installer's git runner, so the real
code path (canonical https remotes, shallow fetch, full fetch fallback) runs with no network.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from tools.jb.gitrun import GitRunner
from tools.jb.install import Bundler

_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "PATH": os.environ.get("PATH", os.defpath),
}


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=_ENV, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout.strip()


class Upstream:
    """One repository: commits land in a work clone and are pushed to the bare one."""

    def __init__(self, srv: Path, slug: str) -> None:
        self.slug = slug
        self.bare = srv / f"{slug}.git"
        self.bare.mkdir(parents=True)
        git("init", "-q", "--bare", ".", cwd=self.bare)
        self.work = srv.parent / "work" / slug
        self.work.mkdir(parents=True)
        git("init", "-q", "-b", "master", ".", cwd=self.work)
        git("remote", "add", "origin", str(self.bare), cwd=self.work)
        self._commits = 0

    def commit(self, files: Mapping[str, str | None], *, branch: str = "master") -> str:
        """Write (or delete, for None) files on `branch` and push; returns the commit SHA."""
        if self._commits == 0:
            git("symbolic-ref", "HEAD", f"refs/heads/{branch}", cwd=self.work)
        elif git("branch", "--list", branch, cwd=self.work):
            git("checkout", "-q", branch, cwd=self.work)
        else:
            git("checkout", "-q", "-b", branch, cwd=self.work)
        for rel, content in files.items():
            path = self.work / rel
            if content is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content)
        self._commits += 1
        git("add", "-A", ".", cwd=self.work)
        git("commit", "-q", "--allow-empty", "-m", f"commit {self._commits}", cwd=self.work)
        git("push", "-q", "-f", "origin", f"HEAD:refs/heads/{branch}", cwd=self.work)
        return git("rev-parse", "HEAD", cwd=self.work)

    def symlink(self, rel: str, target: str) -> str:
        path = self.work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
        return self.commit({})

    def tag(self, name: str, *, annotated: bool = False) -> None:
        extra = ["-a", "-m", name] if annotated else []
        git("tag", *extra, name, cwd=self.work)
        git("push", "-q", "origin", f"refs/tags/{name}", cwd=self.work)


class Server:
    def __init__(self, root: Path) -> None:
        self.srv = root / "srv"
        self.srv.mkdir()
        self.runner = GitRunner(config={f"url.file://{self.srv}/.insteadOf": "https://"})

    def repo(self, slug: str) -> Upstream:
        return Upstream(self.srv, slug)


@pytest.fixture
def server(tmp_path: Path) -> Server:
    return Server(tmp_path)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "checkout"
    path.mkdir()
    return path


@pytest.fixture
def bundler(server: Server, project: Path) -> Bundler:
    return Bundler(project, root=project, git=server.runner)
