"""The history as the pages show it: each page's data from one or a few history reads.

Visibility is applied here, before anything is read for a page: a session of a channel the
reader does not see is not found at all (the page answers 404, as for a session that never
was), and lists are filtered in the store's query.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.domain.thread import ThreadKey
from bot.store.history import CostRow, History, SessionQuery, day_of
from bot.telemetry.audit_log import AuditStore, Event, event_time
from bot.web.access import Access

PAGE_SIZE = 50
AUDIT_SHOWN = 500  # newest events an audit page shows
FILTERS = ("channel", "requester", "state", "env", "q")


@dataclass
class SessionsPage:
    total: int
    page: int
    pages: int
    cards: list[dict[str, Any]]
    filters: dict[str, str]


@dataclass
class SessionDetail:
    card: dict[str, Any]
    answers: list[dict[str, Any]]
    proposals: list[dict[str, Any]]
    approvals: list[dict[str, Any]]
    checks: dict[str, dict[str, Any]]  # CI: each check's latest state
    events: list[dict[str, Any]]
    cost: float = 0.0
    links: dict[str, str] = field(default_factory=dict)


def _json(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def visible(history: History, access: Access, user: str) -> frozenset[str] | None:
    return access.channels(user, history.channels())


def sessions(
    history: History, access: Access, user: str, args: Mapping[str, str], *,
    state: str = "",
) -> SessionsPage:  # fmt: skip
    filters = {name: args.get(name, "").strip()[:200] for name in FILTERS}
    if state:
        filters["state"] = state
    try:
        page = max(1, int(args.get("page", "1")))
    except ValueError:
        page = 1
    query = SessionQuery(channels=visible(history, access, user), **filters)
    total, cards = history.find(query, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE)
    return SessionsPage(total, page, max(1, math.ceil(total / PAGE_SIZE)),
                        [_json(c) for c in cards], filters)  # fmt: skip


def session(history: History, access: Access, user: str, key: ThreadKey) -> SessionDetail | None:
    """The session's page data; None when it is not in the history or not the reader's to see."""
    raw = history.card(key)  # first: a made-up channel in the URL costs Slack no call
    if raw is None or not (access.is_admin(user) or access.sees(user, key.channel)):
        return None
    answers = sorted((_json(a) for a in history.items(key, "answer").values()),
                     key=lambda a: int(a.get("turn") or 0))  # fmt: skip
    proposals = sorted((_json(p) for p in history.items(key, "proposal").values()),
                       key=lambda p: int(p.get("number") or 0))  # fmt: skip
    events = [_json(e) for e in history.events(key)]
    approvals = [e for e in events if e.get("event") == "approval"]
    checks: dict[str, dict[str, Any]] = {}
    for e in events:
        details = e.get("details") or {}
        if e.get("event") == "github_event" and isinstance(details, dict) and "check" in details:
            checks[str(details["check"])] = {**details, "time": e.get("time", "")}
    cost = sum(float(a.get("cost") or 0.0) for a in answers)
    return SessionDetail(_json(raw), answers, proposals, approvals, checks, events, cost)


class _AsKept:
    """Each audit event as the history keeps it: masked again once its thread's mask learned
    more (bot.telemetry.history.Recorder.remask), e.g. a request quoting the password its
    change went on to introduce. The log and the history hold the same event objects, told
    apart by time, event and user, in order. A thread the history no longer keeps shows the
    log's own line."""

    def __init__(self, history: History) -> None:
        self._history = history
        self._threads: dict[ThreadKey, dict[tuple[str, str, str], list[Event]]] = {}

    def __call__(self, event: Event) -> Event:
        try:
            key = ThreadKey(str(event.get("channel", "")), str(event.get("thread", "")))
        except ValueError:
            return event
        if key not in self._threads:
            kept: dict[tuple[str, str, str], list[Event]] = {}
            for raw in self._history.events(key):
                e = _json(raw)
                kept.setdefault(_signature(e), []).append(e)
            self._threads[key] = kept
        same = self._threads[key].get(_signature(event))
        return same.pop(0) if same else event


def _signature(event: Event) -> tuple[str, str, str]:
    return str(event.get("time", "")), str(event.get("event", "")), str(event.get("user", ""))


def audit(
    store: AuditStore, history: History, access: Access, user: str, args: Mapping[str, str],
    *, now: float,
) -> tuple[list[Event], dict[str, str]]:  # fmt: skip
    """The newest AUDIT_SHOWN events matching the filters (`since` defaults to a week ago)."""
    filters = {name: args.get(name, "").strip()[:200] for name in ("since", "user", "event")}
    since = _since(filters["since"], now)
    events = list(_visible_events(store.read(since=since), access, user, filters))
    as_kept = _AsKept(history)
    return [as_kept(e) for e in events[-AUDIT_SHOWN:]][::-1], filters


def audit_lines(
    store: AuditStore, history: History, access: Access, user: str, args: Mapping[str, str],
    *, now: float,
) -> Iterator[bytes]:  # fmt: skip
    filters = {name: args.get(name, "").strip()[:200] for name in ("since", "user", "event")}
    as_kept = _AsKept(history)
    for event in _visible_events(store.read(since=_since(filters["since"], now)), access, user,
                                 filters):  # fmt: skip
        yield json.dumps(as_kept(event), ensure_ascii=False).encode() + b"\n"


def _visible_events(
    events: Iterator[Event], access: Access, user: str, filters: Mapping[str, str]
) -> Iterator[Event]:
    admin = access.is_admin(user)
    seen: dict[str, bool] = {}
    for event in events:
        if filters["user"] and event.get("user") != filters["user"]:
            continue
        if filters["event"] and event.get("event") != filters["event"]:
            continue
        channel = str(event.get("channel", ""))
        if not admin:
            if channel not in seen:
                seen[channel] = access.sees(user, channel)
            if not seen[channel]:
                continue
        yield event


def _since(text: str, now: float) -> float:
    if text:
        probe = {"time": text if "T" in text else f"{text}T00:00:00+00:00"}
        found = event_time(probe)
        if found:
            return found
    return now - 7 * 86_400


def costs(
    history: History, access: Access, user: str, *, days: int = 30, now: float | None = None
) -> list[CostRow]:
    now = time.time() if now is None else now
    rows = history.costs(day_of(now - days * 86_400))
    allowed = visible(history, access, user)
    return [r for r in rows if allowed is None or r.channel in allowed][::-1]
