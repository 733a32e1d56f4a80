"""What the web view shows, recorded as it happens: sessions, proposals with their diffs, each
turn's answer and cost, and the thread's audit events (bot.store.history keeps them).

The audit writer (bot.telemetry.audit.Audit) is the one recording point: it masks each record
with the thread's SecretMask, as it masks audit lines, and runs these calls on its own thread,
so a turn never waits for the history. `Recorder` turns values into the store's rows.

    recorder = Recorder(history)
    recorder.session(session, mask)        # on every save (bot.store.sessions.Sessions.put)
    recorder.event(event)                  # every audit event, masked
    recorder.keep("proposal", key, "2", {...})   # what the proposal showed: diffs, checks
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from bot.domain.sessions import Session
from bot.domain.thread import ThreadKey
from bot.store.base import SessionRecords, StoreUnavailable
from bot.store.history import History, SessionFields, day_of
from tools.redaction import scrub_credentials

log = logging.getLogger(__name__)

Mask = Callable[[str], str]
KINDS = frozenset({"proposal", "answer"})
LEARNED_KEPT = 1000  # threads whose mask size is remembered (as many as a replica keeps masks)


def card(session: Session, mask: Mask) -> dict[str, Any]:
    """The session as the sessions page and the session page's header show it: no conversation,
    no trace; its texts masked."""

    def text(value: str) -> str:
        return mask(scrub_credentials(value))

    proposals = [
        {"number": n, "ts": p.ts, "title": text(p.title), "envs": list(p.envs),
         "files": list(p.files), "approved_by": list(p.approved_by), "created": p.created,
         "diff_hash": p.diff_hash, "base_commit": p.base_commit}
        for n, p in enumerate(session.proposals, 1)
    ]  # fmt: skip
    latest = session.latest_proposal
    return {
        "channel": session.channel,
        "thread_ts": session.thread_ts,
        "requester": session.requester,
        "request": text(session.request),
        "state": state(session),
        "created": session.created,
        "updated": session.updated,
        "base_branch": session.base_branch,
        "base_commit": session.base_commit,
        "branch": session.branch,
        "turns": session.turns,
        "input_tokens": session.input_tokens,
        "output_tokens": session.output_tokens,
        "envs": envs(session),
        "proposals": proposals,
        "awaiting": latest is not None and not latest.approved_by,
        "pull_request": session.pull_request.model_dump() if session.pull_request else None,
        "past_pull_requests": [p.model_dump() for p in session.past_pull_requests],
    }


def state(session: Session) -> str:
    """One word for the filters: running, idle, proposed, approved, merged, closed."""
    if session.state == "running":
        return "running"
    pr = session.pull_request
    if pr is not None:
        return "approved" if pr.state == "open" else pr.state
    latest = session.latest_proposal
    if latest is not None:
        return "approved" if latest.approved_by else "proposed"
    return "idle"


def envs(session: Session) -> list[str]:
    seen: dict[str, None] = {}
    for proposal in session.proposals:
        for env in proposal.envs:
            seen[env.split(" [", 1)[0]] = None
    return list(seen)


class Recorder:
    """Writes into the history; called on the audit writer's thread (errors logged there)."""

    def __init__(self, history: History) -> None:
        self.history = history
        # Per thread: how many forms its mask knew at the last remask (the writer's thread only).
        self._learned: OrderedDict[str, int] = OrderedDict()

    def session(self, session: Session, mask: Mask, *, masked: bool = True) -> None:
        """File the session's card. `masked`: `mask` is the thread's SecretMask. A save by code
        that holds no mask (the sweep, a reaction's bookkeeping) updates the state, never the
        texts a masked save wrote: the request may quote a Secret value the thread's mask
        knows."""
        row = card(session, mask)
        row["masked"] = masked
        if not masked:
            _keep_masked_texts(row, self.history.card(session.key))
        fields = SessionFields(session.requester, row["state"], tuple(row["envs"]),
                               row["request"])  # fmt: skip
        self.history.put_session(session.key, json.dumps(row), fields, updated=session.updated)

    def remask(self, key: ThreadKey, mask: Mask, learned: int | None = None) -> None:
        """Mask the thread's events again: an event recorded before the thread's mask learned a
        value (a request quoting the password its change then introduces) shows it no more.
        `learned`: how many forms the mask knows; unchanged since this thread's last pass here,
        nothing can have changed and the events are not read."""
        if learned is not None:
            if self._learned.get(key.id) == learned:
                return
            self._learned[key.id] = learned
            self._learned.move_to_end(key.id)
            while len(self._learned) > LEARNED_KEPT:
                self._learned.popitem(last=False)
        changed: dict[int, str] = {}
        for index, raw in enumerate(self.history.events(key)):
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            again = json.dumps(_mask_tree(event, mask), ensure_ascii=False, default=str)
            if again != raw:
                changed[index] = again
        self.history.replace_events(key, changed)

    def event(self, event: Mapping[str, Any]) -> None:
        try:
            key = ThreadKey(str(event.get("channel", "")), str(event.get("thread", "")))
        except ValueError:
            return  # an event of no thread (none today): nothing to file it under
        self.history.add_event(key, json.dumps(event, ensure_ascii=False, default=str))

    def keep(self, kind: str, key: ThreadKey, name: str, payload: Mapping[str, Any]) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown history item {kind!r}")  # a programming error
        self.history.put_item(key, kind, name, json.dumps(payload, ensure_ascii=False))
        if kind == "answer":
            self.history.add_cost(
                day_of(float(payload.get("at") or 0)), key.channel,
                float(payload.get("cost") or 0.0), int(payload.get("input_tokens") or 0),
                int(payload.get("output_tokens") or 0),
            )  # fmt: skip


def _mask_tree(value: Any, mask: Mask) -> Any:
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {k: _mask_tree(v, mask) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_tree(v, mask) for v in value]
    return value


def _keep_masked_texts(row: dict[str, Any], previous: str | None) -> None:
    try:
        before = json.loads(previous) if previous else {}
    except ValueError:
        return
    if not isinstance(before, dict) or not before.get("masked"):
        return
    row["masked"] = True
    row["request"] = before.get("request", row["request"])
    titles = {p.get("number"): p.get("title") for p in before.get("proposals") or []}
    for proposal in row["proposals"]:
        if proposal["number"] in titles:
            proposal["title"] = titles[proposal["number"]]


def migrate(store: SessionRecords, recorder: Recorder) -> int:
    """File every stored session the history has no card of (sessions saved before the history
    existed); how many. Their answers and diffs were never kept, so only their cards show; no
    mask knows their Secret values here, so their texts are only scrubbed of credentials."""
    try:
        stored = [key for key, _ in store.sessions()]
        known = recorder.history.known(stored)
        missing = [k for k in stored if k not in known]
    except StoreUnavailable as exc:
        log.warning("history: stored sessions not migrated: %s", exc)
        return 0
    done = 0
    for key in missing:
        try:
            raw = store.load(key)
            if raw is None:
                continue
            recorder.session(Session.from_json(raw), lambda text: text, masked=False)
            done += 1
        except (StoreUnavailable, ValueError) as exc:  # SessionCorrupt is a ValueError
            log.info("history: session %s not migrated: %s", key.id, exc)
    return done
