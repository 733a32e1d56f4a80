"""What every entry point of the runner shares: a thread's lease, pending messages, mask and
replies.

One turn at a time per thread, across replicas (the lease); messages that arrive meanwhile wait
for the next turn (bot.runtime.pending); `guard` is the one place where a job's errors become
replies in the thread. The bot answers every request in its thread, even if
only to say why it cannot help.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from bot.domain.ports import ChatError
from bot.domain.requests import Reaction
from bot.domain.sessions import Session
from bot.domain.thread import ThreadKey
from bot.runtime.dispatch import Dispatcher, Submitted
from bot.runtime.failures import STORE_DOWN, failure
from bot.runtime.lease import Lease, request_cancel
from bot.runtime.masks import ThreadMasks
from bot.runtime.pending import Pending
from bot.services import Services
from bot.slack.masking import MaskingChat
from bot.store.base import StoreUnavailable
from bot.telemetry.logs import thread_context
from tools.redaction import SecretMask

log = logging.getLogger(__name__)

BUSY = (
    ":hourglass: I'm at capacity right now, so this request was not started; "
    "try again in a few minutes."
)
QUEUED = (
    ":hourglass: Queued: other requests are running; "
    "I'll start on this as soon as a worker is free."
)
NOTED = ":memo: Noted. I'll read this when the current step finishes."
APPROVAL_WAIT = 10.0  # seconds an approval waits for the thread's turn to let go

# A turn on the thread's queued messages, run while the caller holds the thread's lease.
Turn = Callable[["Threads", ThreadKey, list[Pending], Lease], None]


class Threads:
    def __init__(
        self, svc: Services, dispatcher: Dispatcher,
        channels: Callable[[str], Services | None] | None, turn: Turn,
    ) -> None:  # fmt: skip
        self.svc = svc
        self.dispatcher = dispatcher
        # Teams: each channel's view of the service (its repository, base branch, approvers).
        self.channels = channels or (lambda _channel: svc)
        self._turn = turn
        self._running: dict[str, Lease] = {}
        # TANKA_BOT_WORKERS turns at once, whichever pool runs them: the work queue's consumers
        # (mentions, replies, reactions) and the dispatcher's (/tanka, alerts, PR news).
        self._slots = threading.BoundedSemaphore(svc.settings.workers)
        self._masks = ThreadMasks()
        self._lock = threading.Lock()
        self._here = threading.local()  # `inline`: this thread is already a worker

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

    def wake(self, key: ThreadKey) -> None:
        """Run the thread's queued messages (for the sweep, when nobody else will)."""
        self.submit(key, lambda: self._run_queued(key))

    def _run_queued(self, key: ThreadKey) -> None:
        self.drive(key)  # if another turn holds the thread, that turn reads the queue

    # --- jobs (worker threads) ------------------------------------------------------------------

    @contextmanager
    def inline(self) -> Iterator[None]:
        """Within: `submit` runs jobs in the calling thread (a work-queue consumer, which is
        already one of the workers) instead of handing them to the pool."""
        self._here.inline = True
        try:
            yield
        finally:
            self._here.inline = False

    def submit(self, key: ThreadKey, job: Callable[[], None]) -> None:
        if getattr(self._here, "inline", False):
            self.guard(key, job)
            return
        admission = self.dispatcher.submit(lambda: self.guard(key, job))
        if admission is Submitted.QUEUED:
            self.post(key, QUEUED)
        elif admission is Submitted.FULL:
            self.post(key, BUSY)

    def guard(self, key: ThreadKey, job: Callable[[], None]) -> None:
        """Run a job for a thread; its errors become replies (bot.runtime.failures)."""
        mask, _ = self._masks.get(key)
        with thread_context(key.id, mask.apply):
            try:
                job()
            except Exception as exc:
                failed = failure(exc)
                self.svc.metrics.errors.labels(failed.kind).inc()
                if failed.expected:
                    log.warning("%s: %s", failed.kind, exc)
                else:
                    log.exception("unexpected failure")
                if failed.reply is not None:
                    self.post(key, failed.reply)

    def enqueue_and_drive(self, key: ThreadKey, pending: Pending, *, new: bool) -> None:
        if not pending.text.strip() and new:
            self.post(key, "What should I do? Mention me with a request, e.g. "
                            "`@tanka-bot raise loki's replicas to 3 in dev`.")  # fmt: skip
            return
        self.svc.store.push_pending(key, pending.dump())
        if not self.drive(key):
            self.post(key, NOTED)

    def drive(self, key: ThreadKey) -> bool:
        """Run turns for the thread's queued messages; False if another turn holds the thread."""
        first = True
        while True:
            lease = Lease(self.svc.store, key, ttl=self.svc.lock_ttl, replica=self.svc.replica)
            with self._slots:  # waited for before the lease: meanwhile another replica may run it
                if not lease.acquire():
                    return not first  # someone else will read the queue after their turn
                first = False
                with self._lock:
                    self._running[key.id] = lease
                try:
                    while items := [Pending.load(r) for r in self.svc.store.drain_pending(key)]:
                        self._turn(self, key, items, lease)
                finally:
                    with self._lock:
                        self._running.pop(key.id, None)
                    lease.release()
            # A message queued between the last drain and the release would wait for the next
            # one; look once more now that the lease is free.
            if not self.svc.store.has_pending(key):
                return True

    def holding(self, svc: Services, key: ThreadKey, work: Callable[[], None]) -> bool:
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
            self.drive(key)
        return True

    # --- helpers --------------------------------------------------------------------------------

    def masked(
        self, svc: Services, key: ThreadKey, session: Session | None = None
    ) -> tuple[Services, SecretMask]:
        """`svc` posting and auditing through the thread's SecretMask, and the mask itself. Until
        a mask has met its session here, it first learns the Secret values of `session`'s change."""
        mask, taught = self._masks.get(key)
        if session is not None and not taught:
            # The renders that teach it load with the turn's modules, where turns run: the
            # serving process of a split bot (bot.work_process) posts notices through Threads.
            from bot.handlers.turn import teach_mask  # noqa: PLC0415 - see the comment above

            teach_mask(svc, session, mask)
            self._masks.taught(key)
        chat, audit = MaskingChat(svc.chat, mask.apply), svc.audit.with_mask(mask.apply)
        return replace(svc, chat=chat, audit=audit), mask

    def _cancel_local(self, key: ThreadKey) -> bool:
        with self._lock:
            lease = self._running.get(key.id)
        if lease is None:
            return False
        lease.token.cancel()
        return True

    def thread_of(self, channel: str, ts: str) -> ThreadKey | None:
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

    def post_to_message(self, reaction: Reaction, text: str) -> None:
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
