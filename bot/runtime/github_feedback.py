"""GitHub's news on the bot's pull requests (checks, reviews, comments, merges) into their
threads. News nobody in the thread asked for: failures are logged, never replied."""

from __future__ import annotations

import logging

from bot.domain.pr_events import (
    CheckRunUpdate,
    GitHubEvent,
    PullRequestClosed,
    PullRequestEvent,
    ReviewSubmitted,
    subject,
)
from bot.handlers import ci
from bot.runtime import guard_holds
from bot.runtime.threads import Threads
from bot.telemetry.logs import thread_context

log = logging.getLogger(__name__)


def report(threads: Threads, event: GitHubEvent) -> None:
    """A verified, first-seen GitHub event taken from the work queue (in the consumer's thread);
    bot.inbound.github_receiver acknowledged it."""
    svc = threads.svc

    def one(item: PullRequestEvent) -> None:
        key = ci.thread_of(svc, item)
        if key is None:
            return  # a pull request the bot did not open
        # The session's change holds Secret values a comment may quote: a replica that never
        # rendered it learns them first, from the channel's repository (as a turn or an
        # approval does).
        here = threads.channels(key.channel) or svc
        masked, mask = threads.masked(here, key, here.sessions.get(key))
        with thread_context(key.id, mask.apply):
            # The check's or review's state too: the web view shows CI from these events.
            news = {"event": type(event).__name__, "pr": item.pr.number, **_state(item)}
            masked.audit.record(key.channel, key.thread_ts, "", "github_event", news)
            ci.handle(masked, key, item)
        if isinstance(item, PullRequestClosed):  # what it held is free; its waiters go on
            guard_holds.released(threads, item.pr.repo, item.pr.number,
                                 "merged" if item.merged else "closed")  # fmt: skip

    try:
        for item in ci.pull_request_events(svc, event):
            one(item)
    except Exception:  # news nobody in the thread asked for: logged, never replied
        svc.metrics.errors.labels("github").inc()
        log.exception("GitHub event %s on %s not reported", type(event).__name__,
                      subject(event))  # fmt: skip


def _state(item: PullRequestEvent) -> dict[str, object]:
    if isinstance(item, CheckRunUpdate):
        return {"check": item.name, "status": item.status, "conclusion": item.conclusion,
                "url": item.url}  # fmt: skip
    if isinstance(item, ReviewSubmitted):
        return {"review": item.state, "reviewer": item.reviewer}
    if isinstance(item, PullRequestClosed):
        return {"merged": item.merged, "by": item.by}
    return {}
