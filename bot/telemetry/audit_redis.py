"""The audit log as a Redis stream, shared by every replica (`AuditStore`).

Each event is one stream entry (field `e`, the event's JSON). Appends trim in the same pipeline:
`MAXLEN ~ max_events` on every XADD, and `XTRIM MINID ~` at the retention cutoff, both
approximate so Redis trims whole radix-tree nodes cheaply. Reading walks XRANGE in pages from
the `since` time (stream ids start with the unix milliseconds of the append).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import cast

from bot.store.redis import RedisStore
from bot.telemetry.audit_log import Event, matches, parse_line

PAGE = 1000


class RedisAudit:
    def __init__(
        self, url: str, *, prefix: str, retention: float, max_events: int,
        clock: Callable[[], float] = time.time,
    ) -> None:  # fmt: skip
        # A RedisStore's connection handling (timeouts, outages as StoreUnavailable), reused.
        self._store = RedisStore(url, prefix=prefix)
        self._key = f"{prefix}audit"
        self.retention = retention
        self.max_events = max_events
        self._clock = clock

    def append(self, lines: Sequence[str]) -> None:
        if not lines:
            return
        client = self._store.client
        cutoff = int((self._clock() - self.retention) * 1000)
        with self._store.reachable():
            pipe = client.pipeline(transaction=False)
            for line in lines:
                pipe.xadd(self._key, {"e": line.encode()}, maxlen=self.max_events,
                          approximate=True)  # fmt: skip
            pipe.xtrim(self._key, minid=f"{max(cutoff, 0)}-0", approximate=True)
            pipe.execute()

    def read(self, *, since: float | None = None, thread: str | None = None) -> Iterator[Event]:
        client = self._store.client
        start = "-" if since is None else f"{max(int(since * 1000), 0)}-0"
        while True:
            with self._store.reachable():
                page = cast(
                    "list[tuple[bytes, dict[bytes, bytes]]]",
                    client.xrange(self._key, min=start, max="+", count=PAGE),
                )
            for entry_id, fields in page:
                event = parse_line(fields.get(b"e", b"").decode())
                if event is not None and matches(event, since, thread):
                    yield event
                start = f"({entry_id.decode()}"
            if len(page) < PAGE:
                return

    def close(self) -> None:
        self._store.close()
