"""Where the audit log is kept: JSON-lines files here, a Redis stream in audit_redis.py; the
contract both keep. bot.telemetry.audit.build_audit_store chooses (Redis with `REDIS_URL`).

One contract (`AuditStore`): `append` a batch of events, `read` them back oldest first with
optional filters. An event is a JSON object `{"time", "channel", "thread", "user", "event",
"details"}`, `time` an ISO 8601 UTC string; the store keeps it as that JSON text.

Retention: events older than `retention` seconds go, and about `max_events` are kept at most. The
files are segments `audit-<first event's unix ms>-<n>.jsonl` under `<workdir>/audit/`; a segment
is closed after `max_events // 10` events or a tenth of the retention, and a closed segment is
deleted once its last write (its mtime, set from the store's clock) is before the cutoff, or when
more than ten closed segments exist.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

Event = dict[str, Any]
_SEGMENT = re.compile(r"^audit-(\d{15})-(\d{6})\.jsonl$")
SEGMENTS_KEPT = 10


class AuditStore(Protocol):
    def append(self, lines: Sequence[str]) -> None:
        """Append events, each one JSON object as text, in order."""
        ...

    def read(self, *, since: float | None = None, thread: str | None = None) -> Iterator[Event]:
        """Events oldest first; `since`: unix time, `thread`: the thread's ts."""
        ...

    def close(self) -> None: ...


def event_time(event: Event) -> float:
    try:
        return datetime.fromisoformat(str(event.get("time", ""))).timestamp()
    except ValueError:
        return 0.0


def iso_time(seconds: float) -> str:
    return (
        datetime.fromtimestamp(seconds, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def matches(event: Event, since: float | None, thread: str | None) -> bool:
    if thread is not None and event.get("thread") != thread:
        return False
    return since is None or event_time(event) >= since


class JsonLinesAudit:
    """`AuditStore` in files under `directory`; one writer process (the memory-store case)."""

    def __init__(
        self, directory: Path, *, retention: float, max_events: int,
        clock: Callable[[], float] = time.time,
    ) -> None:  # fmt: skip
        self.directory = directory
        self.retention = retention
        self.segment_events = max(max_events // SEGMENTS_KEPT, 1)
        self._clock = clock
        self._lock = threading.Lock()
        self._current: Path | None = None
        self._started = 0.0  # the current segment's first event (unix time)
        self._count = 0

    def _segments(self) -> list[tuple[int, Path]]:
        """(first event's unix ms, path) of every segment, oldest first."""
        try:
            names = os.listdir(self.directory)
        except FileNotFoundError:
            return []
        found = [(m, n) for n in names if (m := _SEGMENT.match(n))]
        return sorted((int(m[1]), self.directory / n) for m, n in found)

    def _open_current(self, now: float) -> Path:
        if self._current is None:
            segments = self._segments()
            if segments:
                self._started, self._current = segments[-1][0] / 1000, segments[-1][1]
                with self._current.open("rb") as f:
                    self._count = sum(1 for _ in f)
        if (
            self._current is None
            or self._count >= self.segment_events
            or now - self._started > self.retention / SEGMENTS_KEPT
        ):
            self.directory.mkdir(parents=True, exist_ok=True)
            ms = int(now * 1000)
            n = 0
            while (path := self.directory / f"audit-{ms:015d}-{n:06d}.jsonl").exists():
                n += 1
            self._current, self._started, self._count = path, ms / 1000, 0
            self._prune(now)
        return self._current

    def _prune(self, now: float) -> None:
        segments = self._segments()
        closed = [s for s in segments if s[1] != self._current]
        cutoff = now - self.retention
        for index, (_, path) in enumerate(closed):
            try:
                old = path.stat().st_mtime < cutoff  # its last event was written then
            except FileNotFoundError:
                continue
            if old or len(closed) - index > SEGMENTS_KEPT:
                path.unlink(missing_ok=True)

    def append(self, lines: Sequence[str]) -> None:
        if not lines:
            return
        with self._lock:
            now = self._clock()
            path = self._open_current(now)
            with path.open("a", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in lines))
            os.utime(path, (now, now))
            self._count += len(lines)

    def read(self, *, since: float | None = None, thread: str | None = None) -> Iterator[Event]:
        segments = self._segments()
        for index, (_, path) in enumerate(segments):
            later = segments[index + 1][0] / 1000 if index + 1 < len(segments) else None
            if since is not None and later is not None and later < since:
                continue  # every event here is older than `since`
            try:
                with path.open(encoding="utf-8") as f:
                    for line in f:
                        event = parse_line(line)
                        if event is not None and matches(event, since, thread):
                            yield event
            except FileNotFoundError:
                continue  # pruned while reading

    def close(self) -> None:
        """Files are closed after every append."""


def parse_line(line: str) -> Event | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None  # a line cut short by a crash
    return value if isinstance(value, dict) else None
