"""The runner: from a parsed Slack request to work done in its thread.

Listeners hand it domain values after the ack. It owns the per-thread lease (one turn at a time
per thread, across replicas), the queue of messages that arrive while a turn runs, loading and
creating sessions, and it is the one place where errors become replies in the thread. The bot
answers every request in its thread, even if only to say why it cannot help.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.domain.commands import NewEnv, is_cancel, is_rebase, new_env_prompt
from bot.domain.ports import ChatError
from bot.domain.pr_events import GitHubEvent, PullRequestEvent, subject
from bot.domain.requests import Mention, Reaction, SlashCommand, ThreadReply
from bot.domain.sessions import Session, SessionCorrupt
from bot.domain.thread import ThreadKey
from bot.handlers import ci, rebase, steer
from bot.handlers.approve import approve, withdraw
from bot.handlers.turn import run_turn, teach_mask
from bot.publish.pr_text import branch_name
from bot.runtime.dispatch import Admission, Dispatcher
from bot.runtime.lease import Lease, request_cancel
from bot.services import Services
from bot.slack.masking import MaskingChat
from bot.store.base import StoreUnavailable
from bot.telemetry.logs import thread_context
from bot.workspace.workspaces import WorkspaceError
from tools.redaction import SecretMask

log = logging.getLogger(__name__)

STORE_DOWN = (
    ":warning: I can't take work right now: my session store is unavailable ({error}). "
    "Nothing was started; try again in a minute."
)
BUSY = (
    ":hourglass: I'm at capacity right now, so this request was not started; "
    "try again in a few minutes."
)
QUEUED = (
    ":hourglass: Queued: other requests are running; "
    "I'll start on this as soon as a worker is free."
)
NOTED = ":memo: Noted. I'll read this when the current step finishes."
MASKS_KEPT = 1000  # threads whose Secret values this replica remembers
APPROVAL_WAIT = 10.0  # seconds an approval waits for the thread's turn to let go
CUT_OFF = (
    ":warning: The previous turn in this thread was cut off (the bot restarted or crashed). "
    "Edits saved up to that point are kept; continuing from there."
)


@dataclass(frozen=True, slots=True)
class Pending:
    user: str
    text: str
    request: str = ""  # the session's title-worthy request, when it differs from `text`

    def dump(self) -> str:
        return json.dumps({"user": self.user, "text": self.text, "request": self.request})

    @classmethod
    def load(cls, raw: str) -> Pending:
        data = json.loads(raw)
        return cls(str(data["user"]), str(data["text"]), str(data.get("request", "")))


class Runner:
    def __init__(
        self, svc: Services, dispatcher: Dispatcher,
        channels: Callable[[str], Services | None] | None = None,
    ) -> None:  # fmt: skip
        self.svc = svc
        self.dispatcher = dispatcher
        # Teams: each channel's view of the service (its repository, base branch, approvers).
        self.channels = channels or (lambda _channel: svc)
        self._running: dict[str, Lease] = {}
        self._masks: dict[str, SecretMask] = {}
        self._taught: set[str] = set()  # threads whose mask has learned their session's change
        self._lock = threading.Lock()

    # --- entry points (listener threads, after the ack) -----------------------------------------

    def accept_message(self, message: Mention | ThreadReply) -> None:
        key = message.key
        if steer.refuse_message(self.svc, message):  # teams: who may steer, which channels
            return
        if is_cancel(message.text):
            self.cancel(key, message.user)
            return
        if is_rebase(message.text):
            self._submit(key, lambda: self._rebase(message))
            return
        self._submit(key, lambda: self._message(message))

    def accept_reaction(self, reaction: Reaction) -> None:
        s = self.svc.settings
        if reaction.name not in (s.approve_emoji, s.cancel_emoji):
            return
        if not reaction.added and reaction.name != s.approve_emoji:
            return  # a removed approve reaction withdraws the approval (teams)
        try:
            key = self._thread_of(reaction.channel, reaction.item_ts)
        except StoreUnavailable as exc:
            log.warning("reaction ignored, the store is down: %s", exc)
            self._post_to_message(reaction, STORE_DOWN.format(error=exc))
            return
        if key is None:
            return  # not a message of one of our threads
        if reaction.name == s.cancel_emoji:
            if steer.refuse_user(self.svc, key.channel, key.thread_ts, reaction.user, "cancel"):
                return
            self.cancel(key, reaction.user)
        else:
            self._submit(key, lambda: self._approve(key, reaction))

    def accept_new_env(self, command: SlashCommand, action: NewEnv) -> None:
        def job() -> None:
            why = steer.refuse_command(self.svc, command)
            if why is not None:
                self.ephemeral(command.channel, command.user, why)
                return
            request = f"/tanka new-env {action.name}" + (
                f" {action.instructions}" if action.instructions else ""
            )
            try:
                ts = self.svc.chat.post(
                    command.channel,
                    f"<@{command.user}> asked for a new environment `{action.name}`"
                    + (f": {action.instructions}" if action.instructions else ""),
                )
            except ChatError as exc:
                log.warning("new-env: could not post in %s: %s", command.channel, exc)
                note = f"I could not post in this channel ({exc}); invite me with /invite."
                self.ephemeral(command.channel, command.user, note)
                return
            key = ThreadKey(command.channel, ts)
            pending = Pending(command.user, new_env_prompt(action), request=request)
            self._guard(key, lambda: self._enqueue_and_drive(key, pending, new=True))

        if self.dispatcher.submit(job) is Admission.FULL:
            self.ephemeral(command.channel, command.user, BUSY)

    def wake(self, key: ThreadKey) -> None:
        """Run the thread's queued messages (for the sweep, when nobody else will)."""
        self._submit(key, lambda: self._run_queued(key))

    def _run_queued(self, key: ThreadKey) -> None:
        self._drive(key)  # if another turn holds the thread, that turn reads the queue

    def accept_github(self, event: GitHubEvent) -> None:
        """A verified, first-seen GitHub event (bot.inbound.github_receiver has acked it)."""

        def report(item: PullRequestEvent) -> None:
            key = ci.thread_of(self.svc, item)
            if key is None:
                return  # a pull request the bot did not open
            masked, _ = self._masked(self.svc, key)
            with thread_context(key.id):
                news = {"event": type(event).__name__, "pr": item.pr.number}
                masked.audit.record(key.channel, key.thread_ts, "", "github_event", news)
                ci.handle(masked, key, item)

        def job() -> None:
            try:
                for item in ci.pull_request_events(self.svc, event):
                    report(item)
            except Exception:  # news nobody in the thread asked for: logged, never replied
                self.svc.metrics.errors.labels("github").inc()
                log.exception("GitHub event %s on %s not reported", type(event).__name__,
                              subject(event))  # fmt: skip

        if self.dispatcher.submit(job) is Admission.FULL:
            log.warning("GitHub event %s on %s dropped: the pool is full", type(event).__name__,
                        subject(event))  # fmt: skip

    def cancel(self, key: ThreadKey, user: str) -> None:
        try:
            running = request_cancel(self.svc.store, key, self._cancel_local)
        except StoreUnavailable as exc:
            self.post(key, STORE_DOWN.format(error=exc))
            return
        if running:
            self.svc.audit.record(key.channel, key.thread_ts, user, "cancelled", {})
        text = (
            f":octagonal_sign: <@{user}> cancelled the running turn; edits made so far are kept."
            if running
            else "Nothing is running in this thread."
        )
        self.post(key, text)

    # --- jobs (worker threads) ------------------------------------------------------------------

    def _submit(self, key: ThreadKey, job: Callable[[], None]) -> None:
        admission = self.dispatcher.submit(lambda: self._guard(key, job))
        if admission is Admission.QUEUED:
            self.post(key, QUEUED)
        elif admission is Admission.FULL:
            self.post(key, BUSY)

    def _guard(self, key: ThreadKey, job: Callable[[], None]) -> None:
        """Run a job for a thread; the one place its errors become replies."""
        with thread_context(key.id):
            try:
                job()
            except StoreUnavailable as exc:
                log.warning("store unavailable: %s", exc)
                self.svc.metrics.errors.labels("store").inc()
                self.post(key, STORE_DOWN.format(error=exc))
            except (WorkspaceError, SessionCorrupt) as exc:
                self.svc.metrics.errors.labels("workspace").inc()
                self.post(key, f":warning: {exc}")
            except ChatError as exc:
                self.svc.metrics.errors.labels("slack").inc()
                log.warning("Slack call failed: %s", exc)
            except Exception as exc:
                self.svc.metrics.errors.labels("internal").inc()
                log.exception("unexpected failure")
                name = type(exc).__name__
                self.post(key, f":warning: Something went wrong on my side ({name}); saved edits "
                           "are kept. Reply to try again.")  # fmt: skip

    def _message(self, message: Mention | ThreadReply) -> None:
        key = message.key
        exists = self.svc.sessions.exists(key)
        if not exists and isinstance(message, ThreadReply):
            return  # a conversation between people in a thread the bot is not part of
        self._enqueue_and_drive(key, Pending(message.user, message.text), new=not exists)

    def _enqueue_and_drive(self, key: ThreadKey, pending: Pending, *, new: bool) -> None:
        if not pending.text.strip() and new:
            self.post(key, "What should I do? Mention me with a request, e.g. "
                            "`@tanka-bot raise loki's replicas to 3 in dev`.")  # fmt: skip
            return
        self.svc.store.push_pending(key, pending.dump())
        if not self._drive(key):
            self.post(key, NOTED)

    def _drive(self, key: ThreadKey) -> bool:
        """Run turns for the thread's queued messages; False if another turn holds the thread."""
        first = True
        while True:
            lease = Lease(self.svc.store, key, ttl=self.svc.lock_ttl, replica=self.svc.replica)
            if not lease.acquire():
                return not first  # someone else will read the queue after their turn
            first = False
            with self._lock:
                self._running[key.id] = lease
            try:
                while items := [Pending.load(r) for r in self.svc.store.drain_pending(key)]:
                    self._turn(key, items, lease)
            finally:
                with self._lock:
                    self._running.pop(key.id, None)
                lease.release()
            # A message queued between the last drain and the release would wait for the next
            # one; look once more now that the lease is free.
            if not self.svc.store.has_pending(key):
                return True

    def _turn(self, key: ThreadKey, items: list[Pending], lease: Lease) -> None:
        svc = self.channels(key.channel) or self.svc
        stored = svc.sessions.get(key)
        if stored is None:
            first = items[0]
            now = svc.clock()
            session = Session(
                channel=key.channel, thread_ts=key.thread_ts, requester=first.user,
                request=first.request or first.text, created=now, updated=now,
                base_branch=svc.settings.base_branch,
                branch=branch_name(key.thread_ts, first.request or first.text),
            )  # fmt: skip
            svc.audit.record(key.channel, key.thread_ts, first.user, "session_started",
                             {"request": session.request, "repo": svc.settings.repo_url or "",
                              "base_branch": session.base_branch})  # fmt: skip
        else:
            session = stored
            if session.state == "running":
                self.post(key, CUT_OFF)
        masked, mask = self._masked(svc, key, session)
        for item in items:
            masked.audit.record(key.channel, key.thread_ts, item.user, "message",
                                {"text": item.text})  # fmt: skip
        # After a failing CI run or a change request, the turn starts from what GitHub said.
        context = ci.fix_context(svc, session, mask.apply)
        try:
            run_turn(masked, session, context + _prompt(session, items), lease.token, mask)
        finally:
            session.state = "idle"
            session.updated = svc.clock()
            svc.sessions.put(session)

    def _approve(self, key: ThreadKey, reaction: Reaction) -> None:
        svc = self.channels(key.channel) or self.svc
        if not reaction.added:
            # A withdrawal only takes the approval out of the store's set: it needs no lease, so
            # it is never lost to a running turn. The session is read, not written.
            stored = svc.sessions.get(key)
            if stored is not None:
                masked, mask = self._masked(svc, key, stored)
                withdraw(masked, stored, reaction, mask.apply)
            return
        busy = (
            f"<@{reaction.user}> a turn is running in this thread; approve again when it "
            "has finished and the proposal is final."
        )

        def work() -> None:
            session = svc.sessions.get(key)
            if session is None:
                self.post(key, "This session has expired; mention me to start a new one.")
                return
            masked, mask = self._masked(svc, key, session)
            approve(masked, session, reaction, mask.apply)
            session.updated = svc.clock()
            svc.sessions.put(session)

        if not self._holding(svc, key, work):
            svc.metrics.approvals.labels("refused").inc()
            self.post(key, busy)

    def _rebase(self, message: Mention | ThreadReply) -> None:
        """`rebase` in a session thread (bot.handlers.rebase), under the thread's lease."""
        key = message.key
        svc = self.channels(key.channel) or self.svc
        if not svc.sessions.exists(key):
            self._message(message)  # not a session: an ordinary request, or people talking
            return

        def work() -> None:
            session = svc.sessions.get(key)
            if session is None:
                return
            masked, mask = self._masked(svc, key, session)
            try:
                rebase.rebase(masked, session, message.user, mask)
            finally:  # a clean rebase has stored the new patch: the session must follow
                session.updated = svc.clock()
                svc.sessions.put(session)

        if not self._holding(svc, key, work):
            self.post(key, f"<@{message.user}> a turn is running in this thread; reply "
                            "`rebase` again when it has finished.")  # fmt: skip

    def _holding(self, svc: Services, key: ThreadKey, work: Callable[[], None]) -> bool:
        """Run `work` (an approval, a rebase: not a turn) holding the thread's lease; False when
        a turn kept the thread past the wait.

        A proposal is posted just before its turn lets go of the thread, so the lease is waited
        for a moment rather than refused. Replies that arrived meanwhile were queued for "the
        next turn"; this work reads no queue, so that turn runs now.
        """
        lease = Lease(svc.store, key, ttl=svc.lock_ttl, replica=svc.replica)
        if not _acquire_within(lease, APPROVAL_WAIT):
            return False
        try:
            work()
        finally:
            lease.release()
        if svc.store.has_pending(key):
            self._drive(key)
        return True

    # --- helpers --------------------------------------------------------------------------------

    def _masked(
        self, svc: Services, key: ThreadKey, session: Session | None = None
    ) -> tuple[Services, SecretMask]:
        """`svc` posting and auditing through the thread's SecretMask, and the mask itself. Until
        a mask has met its session here, it first learns the Secret values of `session`'s change."""
        mask, taught = self._mask(key)
        if session is not None and not taught:
            teach_mask(svc, session, mask)
            with self._lock:
                self._taught.add(key.id)
        chat, audit = MaskingChat(svc.chat, mask.apply), svc.audit.with_mask(mask.apply)
        return replace(svc, chat=chat, audit=audit), mask

    def _mask(self, key: ThreadKey) -> tuple[SecretMask, bool]:
        """The thread's Secret values seen so far, and whether they were taught on this replica.
        In memory only: values never go to the store, so a new mask (after a restart, on another
        replica, or once dropped here) is taught again by rendering (`teach_mask`)."""
        with self._lock:
            mask = self._masks.pop(key.id, None) or SecretMask()
            self._masks[key.id] = mask  # most recently used last
            while len(self._masks) > MASKS_KEPT:
                dropped = next(iter(self._masks))
                del self._masks[dropped]
                self._taught.discard(dropped)
            return mask, key.id in self._taught

    def _cancel_local(self, key: ThreadKey) -> bool:
        with self._lock:
            lease = self._running.get(key.id)
        if lease is None:
            return False
        lease.token.cancel()
        return True

    def _thread_of(self, channel: str, ts: str) -> ThreadKey | None:
        key = self.svc.store.thread_of(channel, ts)
        if key is not None:
            return key
        try:
            thread_ts = self.svc.chat.thread_of(channel, ts)
        except ChatError as exc:
            log.info("could not look up the thread of %s/%s: %s", channel, ts, exc)
            return None
        if thread_ts is None:
            return None
        candidate = ThreadKey(channel, thread_ts)
        return candidate if self.svc.sessions.exists(candidate) else None

    def post(self, key: ThreadKey, text: str) -> None:
        """Best effort: `text` in the thread; a Slack failure is logged, never raised."""
        try:
            self.svc.chat.post(key.channel, text, thread_ts=key.thread_ts)
        except ChatError as exc:
            log.warning("could not post in thread %s: %s", key.id, exc)

    def _post_to_message(self, reaction: Reaction, text: str) -> None:
        self.post(ThreadKey(reaction.channel, reaction.item_ts), text)

    def ephemeral(self, channel: str, user: str, text: str) -> None:
        """Best effort: `text` to `user` only; a Slack failure is logged, never raised."""
        try:
            self.svc.chat.ephemeral(channel, user, text)
        except ChatError as exc:
            log.warning("could not answer %s ephemerally: %s", user, exc)


def _acquire_within(lease: Lease, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not lease.acquire():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
    return True


def _prompt(session: Session, items: list[Pending]) -> str:
    if len(items) == 1 and items[0].user == session.requester:
        return items[0].text
    return "\n\n".join(f"<@{i.user}> wrote: {i.text}" for i in items)
