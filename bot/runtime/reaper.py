"""The sweep over stored sessions: reap idle ones, and report turns a crash cut off.

Runs on a schedule on every replica; the thread's lease makes each action happen once: only the
replica that takes the lease reaps a session or reports its cut-off turn.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.domain.ports import ChatError
from bot.domain.sessions import SessionCorrupt
from bot.domain.thread import ThreadKey
from bot.handlers import proposal_message
from bot.runtime.lease import Lease, lock_name
from bot.services import Services
from bot.store.base import StoreUnavailable

log = logging.getLogger(__name__)

EXPIRED = (
    ":wave: This session was idle for {hours:g} h and has been closed; its scratch checkout is "
    "deleted. Mention me to start a new one."
)
CUT_OFF = (
    ":warning: The turn running in this thread was cut off (the bot restarted or crashed). "
    "Edits saved up to that point are kept; reply to continue."
)


class Reaper:
    def __init__(self, svc: Services, *, wake: Callable[[ThreadKey], None] | None = None) -> None:
        self.svc = svc
        # Called for a thread whose queued messages nobody is reading (the runner's `wake`):
        # a message queued while a non-turn held the thread, or by a replica that died.
        self.wake = wake

    def sweep(self) -> tuple[int, int]:
        """(sessions reaped, cut-off turns reported); never raises."""
        reaped = reported = 0
        try:
            entries = self.svc.store.sessions()
        except StoreUnavailable as exc:
            log.warning("session sweep skipped: %s", exc)
            return 0, 0
        self.svc.metrics.sessions_active.set(len(entries))
        now = self.svc.clock()
        for key, updated in entries:
            try:
                if now - updated > self.svc.settings.session_ttl:
                    reaped += self._reap(key)
                else:
                    reported += self._report_cut_off(key)
                    self._wake_if_stranded(key)
            except (StoreUnavailable, ChatError, SessionCorrupt, OSError) as exc:
                log.warning("sweep of %s failed (next sweep retries): %s", key.id, exc)
        return reaped, reported

    def _wake_if_stranded(self, key: ThreadKey) -> None:
        store = self.svc.store
        if (
            self.wake is not None
            and store.has_pending(key)
            and store.holder(lock_name(key)) is None
        ):
            log.info("queued messages of %s had no turn to read them; starting one", key.id)
            self.wake(key)

    def _lease(self, key: ThreadKey) -> Lease:
        return Lease(self.svc.store, key, ttl=self.svc.lock_ttl, replica=self.svc.replica)

    def _reap(self, key: ThreadKey) -> int:
        lease = self._lease(key)
        if not lease.acquire():
            return 0  # a turn runs: the session is not idle after all
        try:
            session = self.svc.sessions.get(lease.key)
            if session is None:
                return 0
            latest = session.latest_proposal
            if latest is not None and not latest.approved_by:  # its buttons can do nothing now
                proposal_message.resolve(self.svc, session, latest, proposal_message.CLOSED)
            self.svc.workspaces.discard(session)
            self.svc.store.delete(lease.key)
            hours = self.svc.settings.session_ttl / 3600
            self.svc.chat.post(session.channel, EXPIRED.format(hours=round(hours, 1)),
                               thread_ts=session.thread_ts)  # fmt: skip
            return 1
        finally:
            lease.release()

    def _report_cut_off(self, key: ThreadKey) -> int:
        lease = self._lease(key)
        if self.svc.store.holder(lock_name(lease.key)) is not None:
            return 0  # a live turn
        stored = self.svc.sessions.get(lease.key)
        if stored is None or stored.state != "running":
            return 0
        if not lease.acquire():
            return 0
        try:
            session = self.svc.sessions.get(lease.key)
            if session is None:
                return 0
            if session.state != "running":
                return 0  # another replica reported it first
            session.state = "idle"
            self.svc.sessions.put(session)
            if session.status_ts:  # no Cancel left on a turn that no longer runs
                proposal_message.end_status(self.svc, session, ":warning: cut off")
            self.svc.chat.post(session.channel, CUT_OFF, thread_ts=session.thread_ts)
            return 1
        finally:
            lease.release()
