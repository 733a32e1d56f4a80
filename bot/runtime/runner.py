"""The runner: from a parsed request to work done in its thread.

The inbound listeners hand it domain values after the ack. Each entry point lives in its own
module: messages (a mention or a reply: a turn, a cancel, `rebase`), reactions (approve,
withdraw, cancel), slash (`/tanka new-env`), github_feedback (PR news) and alerts
(Alertmanager's alert groups). What they share (the per-thread lease, the queue, the masks, and
the one place errors become replies) is bot.runtime.threads.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.domain.alerts import AlertNotification
from bot.domain.commands import NewEnv
from bot.domain.pr_events import GitHubEvent
from bot.domain.requests import Mention, Reaction, SlashCommand, ThreadReply
from bot.domain.thread import ThreadKey
from bot.runtime import alerts, edge, github_feedback, messages, reactions, slash
from bot.runtime.admission import Admission, Count
from bot.runtime.dispatch import Dispatcher
from bot.runtime.threads import Threads
from bot.runtime.triage import Recent
from bot.runtime.work import Work
from bot.services import Services


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

    def receive(self, request: Work, first_time: Callable[[], bool]) -> None:
        """Admit `request` if it is work (`first_time`: the dedupe, asked only then)."""
        edge.receive(self.threads, self.admission, self.recent, request,
                     first_time=first_time, accept=self.accept)  # fmt: skip

    def run(self, work: Work) -> None:
        """One request from the work queue, in the consumer's own thread."""
        with self.threads.inline():
            self.accept(work)

    def accept(self, work: Work) -> None:
        if isinstance(work, Reaction):
            self.accept_reaction(work)
        else:
            self.accept_message(work)

    # --- entry points (listener threads, after the ack) -----------------------------------------

    def accept_message(self, message: Mention | ThreadReply) -> None:
        messages.accept(self.threads, message)

    def accept_reaction(self, reaction: Reaction) -> None:
        reactions.accept(self.threads, reaction)

    def accept_new_env(self, command: SlashCommand, action: NewEnv) -> None:
        slash.accept_new_env(self.threads, command, action)

    def accept_github(self, event: GitHubEvent) -> None:
        github_feedback.accept(self.threads, event)

    def accept_alert(self, notification: AlertNotification) -> bool:
        """An Alertmanager notification; False when no worker can take it (answered 503)."""
        return alerts.accept(self.threads, notification)

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
