"""Holds released: when a bot pull request is merged or closed (its webhook, or the periodic
check that finds it no longer open, so a lost webhook holds nothing for long), its
environments are free and each thread that waited on it is resumed under its own lease
(bot.handlers.guard_holds)."""

from __future__ import annotations

import functools
import logging

from bot.domain.thread import ThreadKey
from bot.errors import ServiceUnavailable
from bot.handlers import ci, guard_holds
from bot.runtime.threads import Threads

log = logging.getLogger(__name__)

# The open pull requests one listing returns (bot.github.code_host.MAX_LISTED; not imported
# from there, since that loads PyGithub).
LISTED_PAGE = 50


def released(threads: Threads, repo: str, number: int, how: str) -> None:
    """Free what pull request `number` held and resume the threads waiting on it."""
    svc = threads.svc
    freed = svc.guards.release(repo, number)
    if freed:
        log.info(
            "pull request %s#%d %s: released %s", repo, number, how, ", ".join(h.env for h in freed)
        )
    for thread in svc.guards.take_waiters(repo, number):
        key = ThreadKey.parse(thread)
        envs = tuple(h.env for h in freed)
        threads.submit(key, functools.partial(_resume, threads, key, number, how, envs))


def _resume(
    threads: Threads, key: ThreadKey, number: int, how: str, freed: tuple[str, ...]
) -> None:
    svc = threads.channels(key.channel) or threads.svc

    def work() -> None:
        session = svc.sessions.get(key)
        if session is None:
            return
        masked, mask = threads.masked(svc, key, session)
        try:
            guard_holds.resume(masked, session, number, how, mask, freed=freed)
        finally:  # a clean rebase has stored the new patch: the session must follow
            session.updated = svc.clock()
            svc.sessions.put(session)

    if not threads.holding(svc, key, work):
        threads.post(
            key,
            f"Pull request #{number}, which held an environment of this thread, "
            f"was {how}; a turn is running, so reply `rebase` when it has "
            "finished.",
        )


def check(threads: Threads) -> int:
    """The periodic check: release the holds of pull requests GitHub no longer lists as open
    (a merge or close whose webhook was lost). Never raises; the number of pull requests
    released. When GitHub cannot be asked, or lists as many open pull requests as one page
    holds (an old one may be beyond it), nothing is released: a hold is kept rather than
    dropped on a guess."""
    svc = threads.svc
    try:
        repo = ci.repo_name(svc)  # the one repository listed (channels' own ones: not checked)
        holds = [h for h in svc.guards.holds() if h.repo == repo]
        if not holds:
            return 0
        host = svc.code_host()
        if host is None or not hasattr(host, "open_pull_requests"):
            return 0
        try:
            listed = host.open_pull_requests()
        finally:
            close = getattr(host, "close", None)
            if callable(close):
                close()
        if len(listed) >= LISTED_PAGE:
            return 0
        still_open = {p.number for p in listed}
        gone = sorted({(h.repo, h.number) for h in holds if h.number not in still_open})
        for repo, number in gone:
            released(threads, repo, number, "closed or merged (found by the periodic check)")
        return len(gone)
    except ServiceUnavailable as exc:  # the store or GitHub
        log.warning("hold check skipped (the next one retries): %s", exc)
        return 0
    except Exception:  # a scheduled job: logged, never raised
        svc.metrics.errors.labels("internal").inc()
        log.exception("hold check failed")
        return 0
