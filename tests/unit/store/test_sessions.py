"""bot.store.sessions: Session values in and out of the store, JSON kept out of call sites."""

from __future__ import annotations

import pytest

from bot.domain.sessions import Session, SessionCorrupt
from bot.domain.thread import ThreadKey
from bot.store.memory import MemoryStore
from bot.store.sessions import Sessions

KEY = ThreadKey("C0TEAM", "1700000000.000100")


def session() -> Session:
    return Session(
        channel=KEY.channel, thread_ts=KEY.thread_ts, requester="U0ASK", request="raise replicas",
        created=10.0, updated=20.0, base_branch="main", branch="tanka-bot/raise-replicas",
    )  # fmt: skip


def test_a_put_session_comes_back_equal_and_indexed_by_its_update_time() -> None:
    store = MemoryStore()
    sessions = Sessions(store)
    assert sessions.get(KEY) is None
    assert not sessions.exists(KEY)

    sessions.put(session())

    assert sessions.get(KEY) == session()
    assert sessions.exists(KEY)
    assert store.sessions(KEY.channel) == [(KEY, 20.0)]


def test_an_unreadable_record_is_session_corrupt_and_still_exists() -> None:
    store = MemoryStore()
    store.save(KEY, '{"channel": 5}', updated=1.0)

    with pytest.raises(SessionCorrupt):
        Sessions(store).get(KEY)
    assert Sessions(store).exists(KEY)


def test_put_indexes_a_card_for_the_home_by_requester_and_while_a_proposal_waits() -> None:
    from bot.domain.proposal import Proposal  # noqa: PLC0415

    store = MemoryStore()
    sessions = Sessions(store)
    stored = session()
    stored.conversation = {"messages": ["a long history"]}
    stored.record_tool("file_read", True, 0.1)
    sessions.put(stored)
    assert sessions.awaiting(10) == []
    (card,) = sessions.by_requester("U0ASK", 10)
    assert card.conversation == {}  # the bulk stays out of the Home's reads
    assert card.trace == []
    assert card.request == "raise replicas"

    record = Proposal(ts="1700000000.000900", base_commit="a", tree="b", diff_hash="c",
                            files=("x",))  # fmt: skip
    stored.proposals = [record]
    sessions.put(stored)
    assert [s.key for s in sessions.awaiting(10)] == [KEY]
    stored.proposals = [record.model_copy(update={"approved_by": ("U0BOB",)})]
    sessions.put(stored)
    assert sessions.awaiting(10) == []
    assert sessions.by_requester("U0OTHER", 10) == []
