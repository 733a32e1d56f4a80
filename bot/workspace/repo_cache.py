"""The repo cache and the session checkouts made from it.

One bare mirror per repository lives in `<workdir>/cache/`; it is cloned once and refreshed by
`fetch` (on demand and from the scheduler). Each session gets a shared clone of it in
`<workdir>/sessions/<name>`, on a fresh branch pinned to the base branch's commit: a shared clone
borrows the cache's objects (fast, little disk) yet has its own refs, index and config, so a session
can never move the cache's branches. Deleting a session is deleting its directory.

Concurrency: `fetch` holds an exclusive `fcntl.flock` on the cache's lock file; making a checkout
holds a shared one. flock locks belong to an open file, so they exclude threads of one process and
other processes (replicas on a shared volume) alike.
"""

from __future__ import annotations

import fcntl
import hashlib
import math
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.git.askpass import TokenCredentials, askpass_env
from bot.git.checkout import Checkout, Identity, PushResult
from tools.gitrun import Git, GitError, refuse_url_credentials
from tools.redaction import scrub_credentials

__all__ = ["Checkout", "GitError", "Identity", "PushResult", "RepoCache"]

_SESSION_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_STAMP = "tanka-bot-fetched"


def _cache_name(url: str) -> str:
    # Readable (last path segment) and unique (hash of the full URL, credentials stripped).
    clean = scrub_credentials(url)
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", clean.rstrip("/").rsplit("/", 1)[-1])[:40]
    return (
        f"{tail.removesuffix('.git') or 'repo'}-{hashlib.sha256(clean.encode()).hexdigest()[:12]}"
    )


class RepoCache:
    def __init__(
        self,
        workdir: Path,
        url: str,
        *,
        credentials: TokenCredentials | None = None,
        timeout: float = 600.0,
    ) -> None:
        refuse_url_credentials(url)
        # git runs with other working directories: relative paths would land somewhere else.
        workdir = Path(os.path.abspath(workdir))
        self.url = url
        self.credentials = credentials
        self.timeout = timeout
        name = _cache_name(url)
        self.path = workdir / "cache" / f"{name}.git"
        self._lock_path = workdir / "cache" / f"{name}.lock"
        self.sessions_dir = workdir / "sessions"
        self.spares_dir = workdir / "spares" / name
        self._building = 0  # spares this process is making now
        self._spare_made = threading.Condition()  # notified as each one is made or given up

    # --- the cache ------------------------------------------------------------------------------

    @contextmanager
    def _locked(self, mode: int) -> Iterator[None]:
        self._lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, mode)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    @contextmanager
    def _remote_git(self, cwd: Path) -> Iterator[Git]:
        with askpass_env(self.credentials) as (env, token):
            yield Git(cwd, self.timeout).with_env(env, secrets=(token,))

    def ensure(self) -> None:
        """Clone the mirror if it is not there yet (once, whoever asks first)."""
        if self._complete():
            return
        with self._locked(fcntl.LOCK_EX):
            if not self._complete():
                self._clone()

    def _complete(self) -> bool:
        return (self.path / _STAMP).exists()

    def _clone(self) -> None:
        # Clone next to the final place and rename: a crash never leaves a half-made cache.
        shutil.rmtree(self.path, ignore_errors=True)
        partial = Path(tempfile.mkdtemp(prefix=".partial-", dir=self.path.parent))
        try:
            with self._remote_git(self.path.parent) as git:
                git.run("clone", "--bare", "--quiet", "--", self.url, str(partial))
            local = Git(partial, self.timeout)
            # Only branches: GitHub's refs/pull/* would multiply the fetch for nothing.
            local.run("config", "remote.origin.fetch", "+refs/heads/*:refs/heads/*")
            # Checkouts borrow these objects; automatic gc must never prune what they rely on.
            local.run("config", "gc.auto", "0")
            (partial / _STAMP).touch()
            partial.rename(self.path)
        finally:
            shutil.rmtree(partial, ignore_errors=True)

    def fetch(self) -> None:
        """Bring the mirror up to date with the remote (clone it if needed)."""
        self.ensure()
        with self._locked(fcntl.LOCK_EX), self._remote_git(self.path) as git:
            git.run("fetch", "--quiet", "--prune", "origin")
            (self.path / _STAMP).touch()

    def refresh_if_older(self, max_age: float) -> bool:
        """Fetch when the last fetch is older than `max_age` seconds; whether it fetched."""
        self.ensure()
        if time.time() - (self.path / _STAMP).stat().st_mtime < max_age:
            return False
        self.fetch()
        return True

    def commit_of(self, branch: str) -> str:
        """The commit `branch` points at in the mirror."""
        self.ensure()
        ref = f"refs/heads/{branch}^{{commit}}"
        git = Git(self.path, self.timeout)
        if not git.ok("rev-parse", "--verify", "--quiet", ref):
            where = scrub_credentials(self.url)
            raise GitError("rev-parse", f"branch {branch!r} does not exist in {where}")
        return git.out("rev-parse", ref)

    def problem(self) -> str | None:
        """Why the cache cannot be used right now (for /readyz), or None."""
        if not self._complete():
            return f"the repo cache of {scrub_credentials(self.url)} has not been cloned yet"
        if not Git(self.path, 30.0).ok("rev-parse", "--git-dir"):
            return f"the repo cache at {self.path} is not a readable git repository"
        return None

    # --- session checkouts ----------------------------------------------------------------------

    def session_path(self, name: str) -> Path:
        if not _SESSION_NAME.match(name):
            raise GitError("clone", f"session name {name!r} must be letters, digits, '.', '_', '-'")
        return self.sessions_dir / name

    def start(self, name: str, *, base_branch: str, branch: str) -> Checkout:
        """A fresh checkout on new branch `branch`, pinned to `base_branch`'s current commit."""
        return self._make(name, self.commit_of(base_branch), branch)

    def restore(self, name: str, *, base_commit: str, branch: str, patch: bytes) -> Checkout:
        """Rebuild a session's checkout (after a restart or on another replica) from its patch."""
        self.ensure()
        cache = Git(self.path, self.timeout)
        if not cache.ok("cat-file", "-e", f"{base_commit}^{{commit}}"):
            self.fetch()  # the base may be newer than this replica's mirror
        checkout = self._make(name, base_commit, branch)
        try:
            checkout.apply_patch(patch)
        except GitError:
            checkout.remove()
            raise
        return checkout

    def _make(self, name: str, base_commit: str, branch: str) -> Checkout:
        dest = self.session_path(name)
        Git(self.path, self.timeout).run("check-ref-format", "--branch", branch)
        shutil.rmtree(dest, ignore_errors=True)  # a leftover from a crashed session
        dest.parent.mkdir(parents=True, exist_ok=True)
        spare = self._claim_spare(dest) or self._await_spare(dest)
        if not spare:
            self._clone_into(dest)
        checkout = Checkout(dest, branch, base_commit, self.timeout)
        try:
            if spare and checkout.head() == base_commit:
                # A spare is a clean checkout nobody wrote to: at the base commit already, only
                # the branch is new. `checkout` would still stat every file of a big tree.
                checkout.git.run("update-ref", f"refs/heads/{branch}", base_commit)
                checkout.git.run("symbolic-ref", "HEAD", f"refs/heads/{branch}")
                return checkout
            # On a spare this only rewrites the files that differ from the spare's commit.
            checkout.git.run("checkout", "--quiet", "--force", "-B", branch, base_commit)
        except GitError:
            checkout.remove()
            raise
        return checkout

    def _clone_into(self, dest: Path) -> None:
        with self._locked(fcntl.LOCK_SH):
            Git(dest.parent, self.timeout).run(
                "clone", "--shared", "--no-checkout", "--quiet", "--", str(self.path), str(dest)
            )

    # --- spare checkouts ------------------------------------------------------------------------
    # Writing thousands of files is most of a checkout's cost, so the scheduler keeps a few
    # checked-out spares; a session claims one by renaming it (atomic, so two replicas can never
    # claim the same spare) and moves it to its base commit, touching only the changed files.

    def replenish(self, count: int, *, branch: str = "main") -> int:
        """Make spares until `count` exist, checked out at `branch`; how many were made."""
        self.spares_dir.mkdir(parents=True, exist_ok=True)
        have = len([p for p in self.spares_dir.iterdir() if not p.name.startswith(".")])
        commit = self.commit_of(branch)
        made = 0
        for _ in range(count - have):
            building = Path(tempfile.mkdtemp(prefix=".building-", dir=self.spares_dir))
            building.rmdir()
            with self._spare_made:
                self._building += 1
            try:
                self._clone_into(building)
                git = Git(building, self.timeout)
                git.run("checkout", "--quiet", "--detach", commit)
                _settle_index(building, git)
                building.rename(self.spares_dir / building.name.removeprefix(".building-"))
                made += 1
            finally:
                shutil.rmtree(building, ignore_errors=True)
                with self._spare_made:
                    self._building -= 1
                    self._spare_made.notify_all()
        return made

    def _await_spare(self, dest: Path) -> bool:
        """With no spare ready but one being made here (right after start-up, or after a burst
        of sessions): wait for it and claim it, which costs less than writing the repository's
        files a second time beside it, on the same disk and CPUs. Whether one was claimed."""
        with self._spare_made:
            while self._building:
                self._spare_made.wait(self.timeout)
                if self._claim_spare(dest):
                    return True
        return False

    def _claim_spare(self, dest: Path) -> bool:
        if not self.spares_dir.is_dir():
            return False
        for spare in sorted(self.spares_dir.iterdir()):
            if spare.name.startswith("."):
                continue
            try:
                spare.rename(dest)
            except OSError:
                continue  # another session claimed it first
            return True
        return False

    def discard(self, name: str) -> None:
        """Delete a session's checkout (idempotent)."""
        shutil.rmtree(self.session_path(name), ignore_errors=True)


def _settle_index(root: Path, git: Git) -> None:
    """Refresh a fresh checkout's index once the clock has moved past the second it was written.

    git cannot trust the cached stat data of a file modified in the same second as the index (a
    "racily clean" entry), so it reads and hashes every such file each time it compares the
    working tree. A checkout writes its files and then its index within a second or so: on a
    15k-file repository (Tempo), a session's every `git add` and `git diff` hashed thousands of
    files: 0.1-0.3 s each on the bot's spares, 1.1 s on a checkout written within one second,
    0.05 s once refreshed. Rewritten a second later, the index is newer than every file. Spares
    are made in the background, so the wait costs no one.
    """
    written = (root / ".git" / "index").stat().st_mtime
    # +0.02: the file system's clock is coarse and may lag time.time() by a tick.
    wait = math.floor(written) + 1.02 - time.time()
    if wait > 0:
        time.sleep(wait)
    git.ok("update-index", "-q", "--refresh")  # if it fails, the spare is only slower to use
