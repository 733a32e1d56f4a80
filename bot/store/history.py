"""The bot's history, kept for the web view (bot.web): what sessions did, after they are reaped.

A role of its own beside the session store: a session's card (a small JSON summary, replaced on
every save), its items (its proposals with their diffs, each turn's answer: JSON by kind and
name), its audit events (a capped list) and the spend per day and channel. Indexes by update
time serve the filters: every session, per channel, per requester, per state and per
environment. Nothing here knows Slack or the session model; rows are opaque JSON text.

Everything of a thread stays `days` after its last write and then goes: its records expire by
themselves (Redis) or are pruned (memory), and `prune` drops the index entries of expired
threads. History is not the session: reaping a session leaves its history alone.

    history = build_history(store, days=90)      # bot.store.history_backend
    history.put_session(key, card, fields, updated=now)
    total, cards = history.find(SessionQuery(channel="C1"), offset=0, limit=50)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Protocol

from bot.domain.thread import ThreadKey

EVENTS_KEPT = 2000  # audit events kept per thread (a turn's tool calls are most of them)
DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class SessionFields:
    """What the filters look at, beside the card."""

    requester: str
    state: str
    envs: tuple[str, ...] = ()
    text: str = ""  # the request: `q` searches it, case-insensitively


@dataclass(frozen=True, slots=True)
class SessionQuery:
    """`channels`: the channels the reader may see (None: every one); the rest narrow it."""

    channels: frozenset[str] | None = None
    channel: str = ""
    requester: str = ""
    state: str = ""
    env: str = ""
    q: str = ""


@dataclass(frozen=True, slots=True, order=True)
class CostRow:
    day: str  # YYYY-MM-DD, UTC
    channel: str
    usd: float
    input_tokens: int
    output_tokens: int
    turns: int


class History(Protocol):
    def put_session(
        self, key: ThreadKey, card: str, fields: SessionFields, *, updated: float
    ) -> None:
        """Store (replace) the thread's card and move it in the indexes."""
        ...

    def put_item(self, key: ThreadKey, kind: str, name: str, data: str) -> None:
        """Store (replace) one item of the thread: kind "proposal" or "answer", name its number."""
        ...

    def add_event(self, key: ThreadKey, event: str) -> None:
        """Append an audit event (JSON) to the thread's; the newest EVENTS_KEPT are kept."""
        ...

    def replace_events(self, key: ThreadKey, changed: dict[int, str]) -> None:
        """Replace the thread's events at these positions (from the oldest, 0) in place: the
        same events masked again once the thread's mask knows more."""
        ...

    def add_cost(
        self, day: str, channel: str, usd: float, input_tokens: int, output_tokens: int
    ) -> None:
        """Add one turn's spend to its day and channel."""
        ...

    def card(self, key: ThreadKey) -> str | None:
        """The thread's card, or None (never recorded, or expired)."""
        ...

    def items(self, key: ThreadKey, kind: str) -> dict[str, str]:
        """The thread's items of `kind` by name."""
        ...

    def events(self, key: ThreadKey) -> list[str]:
        """The thread's audit events, oldest first."""
        ...

    def known(self, keys: Collection[ThreadKey]) -> set[ThreadKey]:
        """Those of `keys` that have a card (one round trip)."""
        ...

    def find(self, query: SessionQuery, *, offset: int, limit: int) -> tuple[int, list[str]]:
        """How many sessions match, and the cards of `limit` of them from `offset`, newest
        first."""
        ...

    def channels(self) -> list[str]:
        """Every channel with a session in the history."""
        ...

    def costs(self, since_day: str) -> list[CostRow]:
        """Spend per day and channel from `since_day` on."""
        ...

    def prune(self) -> int:
        """Forget what is older than the history's days; how many threads went."""
        ...


def day_of(at: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(at))


@dataclass
class _Thread:
    card: str
    fields: SessionFields
    updated: float
    touched: float
    items: dict[str, dict[str, str]] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)


class MemoryHistory:
    """`History` in process memory (one replica, gone with it); thread-safe."""

    def __init__(self, *, days: float, clock: Callable[[], float] = time.time) -> None:
        self.keep = days * DAY
        self._clock = clock
        self._lock = threading.Lock()
        self._threads: dict[ThreadKey, _Thread] = {}
        self._costs: dict[tuple[str, str], list[float]] = {}

    def _thread(self, key: ThreadKey) -> _Thread:
        found = self._threads.get(key)
        if found is None:  # an item or event before the first card: an empty card holds them
            found = _Thread("", SessionFields("", ""), 0.0, self._clock())
            self._threads[key] = found
        found.touched = self._clock()
        return found

    def put_session(
        self, key: ThreadKey, card: str, fields: SessionFields, *, updated: float
    ) -> None:
        with self._lock:
            thread = self._thread(key)
            thread.card, thread.fields, thread.updated = card, fields, updated

    def put_item(self, key: ThreadKey, kind: str, name: str, data: str) -> None:
        with self._lock:
            self._thread(key).items.setdefault(kind, {})[name] = data

    def add_event(self, key: ThreadKey, event: str) -> None:
        with self._lock:
            events = self._thread(key).events
            events.append(event)
            del events[:-EVENTS_KEPT]

    def replace_events(self, key: ThreadKey, changed: dict[int, str]) -> None:
        with self._lock:
            events = self._thread(key).events
            for index, event in changed.items():
                if 0 <= index < len(events):
                    events[index] = event

    def add_cost(
        self, day: str, channel: str, usd: float, input_tokens: int, output_tokens: int
    ) -> None:
        with self._lock:
            row = self._costs.setdefault((day, channel), [0.0, 0, 0, 0])
            row[0] += usd
            row[1] += input_tokens
            row[2] += output_tokens
            row[3] += 1

    def card(self, key: ThreadKey) -> str | None:
        with self._lock:
            thread = self._live(key)
            return thread.card if thread is not None and thread.card else None

    def items(self, key: ThreadKey, kind: str) -> dict[str, str]:
        with self._lock:
            thread = self._live(key)
            return dict(thread.items.get(kind, {})) if thread is not None else {}

    def events(self, key: ThreadKey) -> list[str]:
        with self._lock:
            thread = self._live(key)
            return list(thread.events) if thread is not None else []

    def known(self, keys: Collection[ThreadKey]) -> set[ThreadKey]:
        with self._lock:
            return {k for k in keys if (t := self._live(k)) is not None and t.card}

    def find(self, query: SessionQuery, *, offset: int, limit: int) -> tuple[int, list[str]]:
        with self._lock:
            rows = [
                (t.updated, k.id, t.card)
                for k, t in self._threads.items()
                if t.card and self._fresh(t) and _matches(k, t.fields, query)
            ]
        rows.sort(reverse=True)
        return len(rows), [card for _, _, card in rows[offset : offset + limit]]

    def channels(self) -> list[str]:
        with self._lock:
            return sorted({k.channel for k, t in self._threads.items() if t.card})

    def costs(self, since_day: str) -> list[CostRow]:
        with self._lock:
            return sorted(
                CostRow(day, channel, row[0], int(row[1]), int(row[2]), int(row[3]))
                for (day, channel), row in self._costs.items()
                if day >= since_day
            )

    def prune(self) -> int:
        with self._lock:
            gone = [k for k, t in self._threads.items() if not self._fresh(t)]
            for key in gone:
                del self._threads[key]
            oldest = day_of(self._clock() - self.keep)
            for cost in [c for c in self._costs if c[0] < oldest]:
                del self._costs[cost]
            return len(gone)

    def _fresh(self, thread: _Thread) -> bool:
        return self._clock() - thread.touched < self.keep

    def _live(self, key: ThreadKey) -> _Thread | None:
        thread = self._threads.get(key)
        return thread if thread is not None and self._fresh(thread) else None


def _matches(key: ThreadKey, fields: SessionFields, query: SessionQuery) -> bool:
    if query.channels is not None and key.channel not in query.channels:
        return False
    wanted = (
        (query.channel, key.channel),
        (query.requester, fields.requester),
        (query.state, fields.state),
    )
    if any(want and want != have for want, have in wanted):
        return False
    if query.env and query.env not in fields.envs:
        return False
    return not query.q or query.q.lower() in fields.text.lower()
