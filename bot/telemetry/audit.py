"""The audit log's writer: who did what in which thread, for "who changed prod and why".

`Audit.record` masks the event (the thread's Secret values, credentials), turns it into one JSON
line and hands it to a background thread that appends batches to the `AuditStore`; a turn never
waits for the store. When the store is down the batch is retried a few times and then dropped
with a log line and a metric; when the queue is full (the store far behind) new events are
dropped the same way rather than blocking.

Events (the contract's): session_started, message, refused, tool_call, proposal, approval,
pr_opened, pr_updated, cancelled, github_event.
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

from bot.store.base import StoreUnavailable
from bot.telemetry.audit_log import AuditStore, JsonLinesAudit, iso_time
from bot.telemetry.audit_redis import RedisAudit
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
BATCH = 500
RETRIES = 3

Mask = Callable[[str], str]


def _masked(value: Any, mask: Mask) -> Any:
    if isinstance(value, str):
        text = mask(scrub_credentials(value))
        return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + " …(cut)"
    if isinstance(value, Mapping):
        return {str(k): _masked(v, mask) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_masked(v, mask) for v in value]
    return value


class _Writer:
    """The background thread and its queue, shared by every `Audit` view of one service."""

    def __init__(
        self, store: AuditStore | None, capacity: int, on_drop: Callable[[int], None]
    ) -> None:
        self.store = store
        self.queue: queue.Queue[str | None] = queue.Queue(capacity)
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
            batch: list[str] = []
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

    def _write(self, batch: list[str]) -> None:
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

    def put(self, line: str) -> None:
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
        _writer: _Writer | None = None,
        _mask: Mask = lambda text: text,
    ) -> None:
        self._writer = _writer or _Writer(store, capacity, on_drop)
        self._clock = clock
        self._mask = _mask

    def with_mask(self, mask: Mask) -> Audit:
        return Audit(None, clock=self._clock, _writer=self._writer, _mask=mask)

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
        try:
            line = json.dumps(
                {
                    "time": iso_time(self._clock()),
                    "channel": channel,
                    "thread": thread,
                    "user": user,
                    "event": event,
                    "details": _masked(dict(details or {}), self._mask),
                },
                ensure_ascii=False,
                default=str,
            )
        except (TypeError, ValueError) as exc:
            log.warning("audit: event %s not recorded: %s", event, exc)
            return
        self._writer.put(line)


def build_audit_store(
    redis_url: str | None, workdir: Path, *, retention: float, max_events: int,
    prefix: str = "tanka-bot:",
) -> AuditStore:  # fmt: skip
    """A Redis stream when `redis_url` is given, else JSON-lines files under `workdir/audit`."""
    if redis_url:
        return RedisAudit(redis_url, prefix=prefix, retention=retention, max_events=max_events)
    return JsonLinesAudit(workdir / "audit", retention=retention, max_events=max_events)
