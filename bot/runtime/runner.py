"""The runner: from a parsed request to work done in its thread.

The inbound listeners hand it domain values before the ack, and it puts them on the work queue
(durable with Redis: `receive` after triage, `enqueue*` for what needs none); the work queue's
consumers `handle` them. Each entry point lives in its own
module: messages (a mention or a reply: a turn, a cancel, `rebase`), reactions (approve,
withdraw, cancel), slash (`/tanka new-env`), github_feedback (PR news) and alerts
(Alertmanager's alert groups). What they share (the per-thread lease, the queue, the masks, and
the one place errors become replies) is bot.runtime.threads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from bot.domain.alerts import AlertNotification
from bot.domain.commands import NewEnv
from bot.domain.pr_events import GitHubEvent, subject
from bot.domain.requests import Inbound, Mention, Reaction, SlashCommand, ThreadReply
from bot.domain.thread import ThreadKey
from bot.runtime import alerts, edge, github_feedback, messages, reactions, slash
from bot.runtime.admission import Admission, Count, QueueFull
from bot.runtime.dispatch import Dispatcher
from bot.runtime.failures import STORE_DOWN
from bot.runtime.threads import BUSY, Threads
from bot.runtime.triage import Recent
from bot.runtime.work import NewEnvRequest, Work
from bot.services import Services
from bot.store.base import StoreUnavailable

log = logging.getLogger(__name__)


class Runner:
    def __init__(
        self, svc: Services, dispatcher: Dispatcher,
        channels: Callable[[str], Services | None] | None = None, *, busy: Count | None = None,
    ) -> None:  # fmt: skip
        self.threads = Threads(svc, dispatcher, channels, messages.turn)
        self.svc = svc
        self.dispatcher = dispatcher
        self.channels = self.threads.channels
        self.admission = Admission(svc.store, self.run, owner=svc.replica,
                                   workers=dispatcher.workers, lease_ttl=svc.lock_ttl,
                                   on_depth=svc.metrics.queued.set, busy=busy)  # fmt: skip
        self.recent = Recent()

    # --- the edge (listener threads, before the ack): triage, then the work queue --------------

    def receive(self, request: Inbound, dedupe: Sequence[str] = ()) -> None:
        """Admit `request` if it is work and its delivery is new (`dedupe`: its tokens)."""
        self.admission.hear()
        edge.receive(self.threads, self.admission, self.recent, request,
                     dedupe=dedupe, handle=self.handle)  # fmt: skip

    def run(self, work: Work) -> None:
        """One request from the work queue, in the consumer's own thread."""
        with self.threads.inline():
            self.handle(work)

    def handle(self, work: Work) -> None:
        """Run one request (from the work queue, or a cancel at once off the ack path)."""
        if isinstance(work, Reaction):
            reactions.handle(self.threads, work)
        elif isinstance(work, Mention | ThreadReply):
            messages.handle(self.threads, work)
        elif isinstance(work, NewEnvRequest):
            slash.new_env(self.threads, work.command, work.action)
        elif isinstance(work, AlertNotification):
            alerts.handle(self.threads, work)
        else:
            github_feedback.report(self.threads, work)

    # --- entry points that need no triage: queued before the ack --------------------------------

    def enqueue(self, work: Work) -> str | None:
        """Put a request the bot is sure is for it (a button, `/tanka new-env`, the form, a
        webhook) on the work queue: None once it is there (durable), else what to tell the
        asker (the store is down, the queue is full)."""
        try:
            self.admission.admit(work)
        except StoreUnavailable as exc:
            self.svc.metrics.errors.labels("store").inc()
            log.warning("request not taken, the store is down: %s", exc)
            return STORE_DOWN.format(error=exc)
        except QueueFull as exc:
            self.svc.metrics.dropped.labels("queue_full").inc()
            log.warning("request not taken: %s", exc)
            return BUSY
        return None

    def enqueue_or_tell(self, work: Work, channel: str, user: str) -> None:
        """`enqueue`, and when it could not, `user` alone hears why (a click, a form, a shortcut:
        nothing in a thread waits for an answer)."""
        not_queued = self.enqueue(work)
        if not_queued is not None:
            self.ephemeral(channel, user, not_queued)

    # Each `enqueue_*` returns as `enqueue` does: None once queued, else why not.

    def enqueue_new_env(self, command: SlashCommand, action: NewEnv) -> str | None:
        """`/tanka new-env`, typed or from the form."""
        return self.enqueue(NewEnvRequest(command, action))

    def enqueue_github(self, event: GitHubEvent) -> str | None:
        """GitHub's news on a pull request; the delivery's id is recorded, so a drop is logged."""
        not_queued = self.enqueue(event)
        if not_queued is not None:
            log.warning("GitHub event %s on %s dropped", type(event).__name__, subject(event))
        return not_queued

    def enqueue_alert(self, notification: AlertNotification) -> str | None:
        """An Alertmanager notification; one not queued is answered 503, and Alertmanager
        sends it again."""
        not_queued = self.enqueue(notification)
        if not_queued is not None:
            self.svc.metrics.alert_groups.labels("busy").inc()
        return not_queued

    def wake(self, key: ThreadKey) -> None:
        """Run the thread's queued messages (for the sweep, when nobody else will)."""
        self.threads.wake(key)

    def cancel(self, key: ThreadKey, user: str) -> None:
        self.threads.cancel(key, user)

    # --- replies for the listeners (best effort: a Slack failure is logged) ---------------------

    def post(self, key: ThreadKey, text: str) -> None:
        self.threads.post(key, text)

    def ephemeral(self, channel: str, user: str, text: str) -> None:
        self.threads.ephemeral(channel, user, text)
