"""Background jobs: keep the repo cache fresh and a few spare checkouts ready.

Sessions start from the cache's copy of the base branch, so a stale mirror means proposals made
against old code. A fetch before every session would put the network on the request path; a
periodic job keeps the mirror within one interval of the remote instead, and sessions still
fetch on demand when their base commit is missing (RepoCache.restore).

Each new commit of the base branch is also prepared here, off the request path: its tree, its
import index (derived from the previous commit's) and the base side of every environment's render
(`prepare`, RevisionDiffer.prepare_base), stored on disk where every session's differ - and
`tanka-bot tk diff` given the same TANKA_BOT_WORKDIR - finds them.

A failed run never raises into the scheduler: it is logged, remembered for /readyz, and the next
run tries again. The mirror stays as it was, so sessions keep working from the last good fetch.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from apscheduler.schedulers.background import BackgroundScheduler

from bot.workspace.repo_cache import RepoCache
from tools.gitrun import GitError
from tools.tanka.errors import TankaError

log = logging.getLogger(__name__)

JOB_ID = "repo-cache-maintenance"


class CacheMaintenance:
    def __init__(
        self,
        cache: RepoCache,
        *,
        base_branch: str,
        interval: float = 300.0,
        spares: int = 2,
        prepare: Callable[[Path, str, bool], object] | None = None,
    ) -> None:
        """`prepare(repository, commit, render)`: make a new base commit ready (RevisionDiffer.
        prepare_base); called with render=False first, then with render=True."""
        self.cache = cache
        self.base_branch = base_branch
        self.interval = interval
        self.spares = spares
        self.prepare = prepare
        self.prepared: str | None = None  # the base commit last made ready
        self.last_error: str | None = None  # the latest run's failure, for /readyz
        self.runs = 0
        # Set once the first run has fetched the mirror (cloned it, on a new workdir), or failed:
        # /readyz waits for it and nothing more, since a session needs only the mirror. A spare
        # saves a session writing the repository's files, and a prepared base commit its base
        # renders: both follow in the background (waiting for them kept a pod out of traffic for
        # 8-17 s on Tempo); a session that comes first takes the spare being made and renders
        # what is not made yet, each render once (RepoCache, RevisionDiffer).
        self.fetched = threading.Event()
        self._lock = threading.Lock()  # one run at a time, also when called by hand
        self._scheduler: BackgroundScheduler | None = None

    def run_once(self) -> bool:
        """Fetch if the mirror is older than half an interval, then top up the spares.

        Returns whether the run succeeded; never raises.
        """
        with self._lock:
            self.runs += 1
            try:
                try:
                    self.cache.refresh_if_older(self.interval / 2)
                finally:
                    self.fetched.set()
                # One spare, then the base commit, then the other spares: the next session needs
                # one checkout and the base renders; a second spare serves only a second one.
                made = self.cache.replenish(min(self.spares, 1), branch=self.base_branch)
                self._prepare()
                made += self.cache.replenish(self.spares, branch=self.base_branch)
                if made:
                    log.info("made %d spare checkout(s)", made)
            except (GitError, TankaError, OSError) as exc:
                self.last_error = str(exc)
                log.warning("repo cache maintenance failed (will retry): %s", exc)
                return False
            self.last_error = None
            return True

    def _prepare(self) -> None:
        commit = self.cache.commit_of(self.base_branch)
        if self.prepare is None or commit == self.prepared:
            return
        started = time.monotonic()
        self.prepare(self.cache.path, commit, False)  # tree and import index
        self.prepare(self.cache.path, commit, True)  # the base renders, one at a time
        self.prepared = commit
        log.info("prepared base commit %s in %.1f s", commit[:12], time.monotonic() - started)

    def start(self) -> None:
        """Run now in the background, then every `interval` seconds."""
        scheduler = BackgroundScheduler(timezone=UTC)
        scheduler.add_job(
            self.run_once,
            "interval",
            seconds=self.interval,
            id=JOB_ID,
            next_run_time=datetime.now(UTC),
            max_instances=1,  # a slow fetch is never overlapped by the next one
            coalesce=True,  # after a stall, one catch-up run rather than a burst
        )
        scheduler.start()
        self._scheduler = scheduler

    def shutdown(self) -> None:
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=True)
            self._scheduler = None
