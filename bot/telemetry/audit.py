"""The audit log's writer: who did what in which thread, for "who changed prod and why".

`Audit.record` masks the event (the thread's Secret values, credentials), turns it into one JSON
line and hands it to a background thread that appends batches to the `AuditStore`; a turn never
waits for the store. When the store is down the batch is retried a few times and then dropped
with a log line and a metric; when the queue is full (the store far behind) new events are
dropped the same way rather than blocking.

Events (the contract's): session_started, message, refused, tool_call, proposal, approval,
pr_opened, pr_updated, cancelled, github_event.

With a history (bot.telemetry.history.Recorder: the web view's), the writer is also its one
recording point: each event, each saved session (`session_saved`) and what a proposal or an
answer showed (`keep`) are masked the same way and written on the same thread, in order.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from bot.domain.sessions import Session
from bot.domain.thread import ThreadKey
from bot.store.base import StoreUnavailable
from bot.telemetry.audit_log import AuditStore, JsonLinesAudit, iso_time
from bot.telemetry.audit_redis import RedisAudit
from bot.telemetry.history import Recorder
from tools.redaction import scrub_credentials

log = logging.getLogger(__name__)

EVENTS: Final = frozenset(
    {
        "session_started", "message", "refused", "tool_call", "proposal", "approval",
        "pr_opened", "pr_updated", "cancelled", "github_event",
        # guardrails (bot.guards)
        "freeze", "unfreeze", "override", "waiver", "budget_warning", "budget_refused",
        "budget_raised", "proposal_waiting", "proposal_stale",
    }
)  # fmt: skip
TEXT_LIMIT = 4000  # characters of a message kept in the log
KEPT_LIMIT = 400_000  # characters of a diff the history keeps (Slack got a file past 40,000)
BATCH = 500
RETRIES = 3

Mask = Callable[[str], str]


def _masked(value: Any, mask: Mask, limit: int = TEXT_LIMIT) -> Any:
    if isinstance(value, str):
        text = mask(scrub_credentials(value))
        return text if len(text) <= limit else text[:limit] + " …(cut)"
    if isinstance(value, Mapping):
        return {str(k): _masked(v, mask, limit) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_masked(v, mask, limit) for v in value]
    return value


def _forms_known(mask: Mask) -> int | None:
    """How many forms a SecretMask's `apply` knows (it only grows), or None for another mask:
    the history masks a thread's events again only when this changed."""
    size = getattr(getattr(mask, "__self__", None), "size", None)
    return size if isinstance(size, int) else None  # SecretMask.size, a property


class _Writer:
    """The background thread and its queue, shared by every `Audit` view of one service."""

    def __init__(
        self, store: AuditStore | None, capacity: int, on_drop: Callable[[int], None]
    ) -> None:
        self.store = store
        # A line for the audit log, or a history write (run in order, on this thread).
        self.queue: queue.Queue[str | Callable[[], None] | None] = queue.Queue(capacity)
        self.on_drop = on_drop
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()

    def start(self) -> None:
        with self.lock:
            if self.thread is None and self.store is not None:
                self.thread = threading.Thread(target=self._run, name="audit", daemon=True)
                self.thread.start()

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self.queue.get()
            batch: list[str | Callable[[], None]] = []
            if first is None:
                stopping = True
            else:
                batch.append(first)
            while len(batch) < BATCH:
                try:
                    item = self.queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            self._write(batch)

    def _write(self, batch: list[str | Callable[[], None]]) -> None:
        lines: list[str] = []
        for item in batch:
            if isinstance(item, str):
                lines.append(item)
                continue
            self._append(lines)
            lines = []
            try:
                item()
            except (StoreUnavailable, OSError, ValueError) as exc:
                log.warning("history: a record was dropped: %s", exc)
                self.on_drop(1)
        self._append(lines)

    def _append(self, batch: list[str]) -> None:
        if not batch or self.store is None:
            return
        for attempt in range(RETRIES):
            try:
                self.store.append(batch)
                return
            except (StoreUnavailable, OSError) as exc:
                if attempt == RETRIES - 1:
                    log.warning("audit: %d event(s) dropped, the log is unavailable: %s",
                                len(batch), exc)  # fmt: skip
                    self.on_drop(len(batch))
                    return
                time.sleep(0.2 * (attempt + 1))

    def put(self, line: str | Callable[[], None]) -> None:
        if self.store is None:
            return  # no audit log configured (unit tests, `chat`)
        try:
            self.queue.put_nowait(line)
        except queue.Full:
            log.warning("audit: the queue is full; an event was dropped")
            self.on_drop(1)

    def close(self, timeout: float) -> None:
        with self.lock:
            thread, self.thread = self.thread, None
        if thread is None:
            return
        try:
            self.queue.put(None, timeout=timeout)
        except queue.Full:
            return
        thread.join(timeout)
        if self.store is not None:
            self.store.close()


class Audit:
    """Records audit events; `with_mask` gives a view that masks one thread's Secret values."""

    def __init__(
        self,
        store: AuditStore | None,
        *,
        capacity: int = 10_000,
        on_drop: Callable[[int], None] = lambda n: None,
        clock: Callable[[], float] = time.time,
        history: Recorder | None = None,
        _writer: _Writer | None = None,
        _mask: Mask = lambda text: text,
    ) -> None:
        self._writer = _writer or _Writer(store, capacity, on_drop)
        self._clock = clock
        self._mask = _mask
        self._masked = _writer is not None  # a thread's view (with_mask), not the root
        self.history = history

    def with_mask(self, mask: Mask) -> Audit:
        return Audit(None, clock=self._clock, history=self.history, _writer=self._writer,
                     _mask=mask)  # fmt: skip

    def session_saved(self, session: Session) -> None:
        """File the session's card in the history (masked on the writer's thread)."""
        if self.history is None:
            return
        # The session changes after this returns: its lists are copied now (not the
        # conversation, which the card leaves out).
        snapshot = session.model_copy(update={"conversation": {}, "trace": [],
                                              "proposals": list(session.proposals)})  # fmt: skip
        history, mask, masked = self.history, self._mask, self._masked
        self._writer.put(lambda: history.session(snapshot, mask, masked=masked))
        if masked:  # the mask may know more than when the thread's events were recorded
            learned = _forms_known(mask)
            self._writer.put(lambda: history.remask(snapshot.key, mask, learned))

    def keep(self, kind: str, key: ThreadKey, name: str, payload: Mapping[str, Any]) -> None:
        """Keep what a proposal ("proposal") or a turn's answer ("answer") showed, masked, in
        the history (never in the audit log: diffs are long)."""
        if self.history is None:
            return
        history, mask, data = self.history, self._mask, dict(payload)
        self._writer.put(lambda: history.keep(kind, key, name, _masked(data, mask, KEPT_LIMIT)))

    def start(self) -> None:
        self._writer.start()

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (up to `timeout` s) and stop."""
        self._writer.close(timeout)

    def record(
        self, channel: str, thread: str, user: str, event: str,
        details: Mapping[str, Any] | None = None,
    ) -> None:  # fmt: skip
        """Queue one event; never blocks and never raises (a failure is logged and counted)."""
        if event not in EVENTS:
            raise ValueError(f"unknown audit event {event!r}")  # a programming error
        entry = {
            "time": iso_time(self._clock()),
            "channel": channel,
            "thread": thread,
            "user": user,
            "event": event,
            "details": _masked(dict(details or {}), self._mask),
        }
        try:
            line = json.dumps(entry, ensure_ascii=False, default=str)
        except (TypeError, ValueError) as exc:
            log.warning("audit: event %s not recorded: %s", event, exc)
            return
        self._writer.put(line)
        if self.history is not None:
            history = self.history
            self._writer.put(lambda: history.event(entry))


def build_audit_store(
    redis_url: str | None, workdir: Path, *, retention: float, max_events: int,
    prefix: str = "tanka-bot:",
) -> AuditStore:  # fmt: skip
    """A Redis stream when `redis_url` is given, else JSON-lines files under `workdir/audit`."""
    if redis_url:
        return RedisAudit(redis_url, prefix=prefix, retention=retention, max_events=max_events)
    return JsonLinesAudit(workdir / "audit", retention=retention, max_events=max_events)
