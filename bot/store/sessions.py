"""The stored sessions as `Session` values: the one place that turns them into JSON and back.

    svc.sessions.get(key)   # Session | None; SessionCorrupt when the record cannot be read
    svc.sessions.put(session)

The store underneath keeps a session as opaque JSON text (bot.store.base.SessionRecords) and
its Home tab card (SessionCards); StoreUnavailable passes through unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from bot.agent.codec import conversation_from_dict, conversation_to_dict
from bot.agent.conversation import Conversation
from bot.domain.sessions import Session, SessionCorrupt
from bot.domain.thread import ThreadKey
from bot.store.base import SessionCards, SessionRecords


class SessionStore(SessionRecords, SessionCards, Protocol):
    """The store's roles the sessions use: their records and the Home tab's cards."""


class Sessions:
    def __init__(
        self, store: SessionStore, on_put: Callable[[Session], None] = lambda session: None
    ) -> None:
        self._store = store
        self._on_put = on_put  # the web view's history files the session (bot.telemetry.audit)

    def get(self, key: ThreadKey) -> Session | None:
        raw = self._store.load(key)
        return None if raw is None else Session.from_json(raw)

    def exists(self, key: ThreadKey) -> bool:
        """Whether the thread has a session (its record is not read)."""
        return self._store.has_session(key)

    def put(self, session: Session) -> None:
        self._store.save(session.key, session.to_json(), updated=session.updated)
        latest = session.latest_proposal
        # The Home tab's card: the session without its conversation and trace (the bulk).
        card = session.model_copy(update={"conversation": {}, "trace": []}).to_json()
        self._store.index_session(  # the Home tab's sections (bot.handlers.home)
            session.key, card, requester=session.requester, updated=session.updated,
            awaiting=latest is not None and not latest.approved_by,
        )  # fmt: skip
        self._on_put(session)

    def by_requester(self, user: str, limit: int) -> list[Session]:
        """The sessions `user` started, newest first, as cards: no conversation or trace
        (unreadable ones are left out)."""
        return _readable(self._store.sessions_by(user, limit))

    def awaiting(self, limit: int) -> list[Session]:
        """Sessions whose latest proposal awaits an approval, newest first, as cards."""
        return _readable(self._store.awaiting(limit))


def _readable(rows: list[str]) -> list[Session]:
    found = []
    for raw in rows:
        try:
            found.append(Session.from_json(raw))
        except SessionCorrupt:
            continue  # the thread itself says so when used; a list skips it
    return found


def load_conversation(session: Session) -> Conversation:
    """The session's conversation with the model; SessionCorrupt when it cannot be read."""
    if not session.conversation:
        return Conversation()
    try:
        return conversation_from_dict(session.conversation)
    except ValueError as exc:
        raise SessionCorrupt(f"conversation: {exc}") from None


def store_conversation(session: Session, conversation: Conversation) -> None:
    """Keep `conversation` in the session (as JSON-ready values: the domain knows no agent)."""
    session.conversation = conversation_to_dict(conversation)
