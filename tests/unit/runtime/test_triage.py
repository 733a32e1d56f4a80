"""Triage at the edge: only mentions, replies in session threads and the approve/cancel emoji on
the bot's messages are work; the rest is dropped with a reason, and a store outage leaves only
what the bot is sure of."""

from __future__ import annotations

import time
from typing import cast

import pytest

from bot.config import load_settings
from bot.domain.requests import Mention, Reaction, ThreadReply
from bot.domain.sessions import Session
from bot.domain.thread import ThreadKey
from bot.runtime.dispatch import Dispatcher
from bot.runtime.runner import Runner
from bot.runtime.threads import BUSY, QUEUED
from bot.runtime.triage import Recent, Triaged, triage
from bot.services import Services
from bot.store import StoreUnavailable
from bot.store.memory import MemoryStore
from fakes.chat import RecordingChat
from tests.unit.services import bare_services

CHANNEL, ROOT, BOT = "C0DEPLOY", "1700000000.000100", "U0BOT"
KEY = ThreadKey(CHANNEL, ROOT)
OTHER = ThreadKey(CHANNEL, "1700000009.000100")
BOT_MESSAGE = "1700000001.000100"


class DownStore(MemoryStore):
    def load(self, key: ThreadKey) -> str | None:
        raise StoreUnavailable("Redis at 127.0.0.1:6379 is unavailable: refused")

    def has_session(self, key: ThreadKey) -> bool:
        raise StoreUnavailable("Redis at 127.0.0.1:6379 is unavailable: refused")

    def thread_of(self, channel: str, ts: str) -> ThreadKey | None:
        raise StoreUnavailable("Redis at 127.0.0.1:6379 is unavailable: refused")


def services(store: MemoryStore) -> Services:
    chat = RecordingChat()
    return bare_services(load_settings({}), store=store, chat=chat, bot_user_id=BOT)


@pytest.fixture
def svc() -> Services:
    store = MemoryStore()
    session = Session(channel=CHANNEL, thread_ts=ROOT, requester="U0ALICE", request="scale dev",
                      created=1.0, updated=1.0, base_branch="main")  # fmt: skip
    store.save(KEY, session.to_json(), updated=1.0)
    store.index_message(CHANNEL, BOT_MESSAGE, KEY, 60.0)
    return services(store)


def reply(key: ThreadKey) -> ThreadReply:
    return ThreadReply(CHANNEL, "U0ALICE", "and prod", "1700000005.000100", key.thread_ts)


def emoji(name: str, ts: str, *, author: str = BOT, added: bool = True) -> Reaction:
    return Reaction(CHANNEL, "U0BOB", name, ts, added, 1700000006.0, author)


def test_a_mention_is_always_work(svc: Services) -> None:
    recent = Recent()
    mention = Mention(CHANNEL, "U0ALICE", "hi", "1700000007.000100", None)
    assert triage(svc, mention, recent) == Triaged(mention.key)
    assert mention.key in recent


def test_a_reply_is_work_only_in_a_session_thread(svc: Services) -> None:
    assert triage(svc, reply(KEY), Recent()) == Triaged(KEY)
    assert triage(svc, reply(OTHER), Recent()) == Triaged(None, "reply_without_session")


@pytest.mark.parametrize(
    ("reaction", "verdict"),
    [
        (emoji("white_check_mark", BOT_MESSAGE), Triaged(KEY)),
        (emoji("x", BOT_MESSAGE), Triaged(KEY)),
        (emoji("white_check_mark", BOT_MESSAGE, added=False), Triaged(KEY)),  # a withdrawal
        (emoji("x", BOT_MESSAGE, added=False), Triaged(None, "reaction_removed")),
        (emoji("tada", BOT_MESSAGE), Triaged(None, "reaction_other_emoji")),
        (
            emoji("white_check_mark", ROOT, author="U0ALICE"),
            Triaged(None, "reaction_not_on_bot_message"),
        ),
        # Slack did not name the author: only the index can say
        (emoji("white_check_mark", ROOT, author=""), Triaged(None, "reaction_not_on_bot_message")),
        (emoji("white_check_mark", BOT_MESSAGE, author=""), Triaged(KEY)),
        # the bot's message, not indexed (yet): work, its thread looked up by the runner
        (emoji("white_check_mark", "1700000008.000100"), Triaged(None)),
    ],
)
def test_reactions(svc: Services, reaction: Reaction, verdict: Triaged) -> None:
    assert triage(svc, reaction, Recent()) == verdict


def test_with_the_store_down_only_threads_known_here_are_told() -> None:
    svc = services(DownStore())
    recent = Recent()
    recent.add(KEY)
    known = triage(svc, reply(KEY), recent)
    assert (known.key, known.dropped) == (KEY, "store_unavailable")
    assert "unavailable" in known.store_down
    unknown = triage(svc, reply(OTHER), recent)
    assert (unknown.key, unknown.dropped) == (None, "store_unavailable")
    reaction = triage(svc, emoji("white_check_mark", BOT_MESSAGE), recent)
    assert (reaction.key, reaction.dropped) == (None, "store_unavailable")


def test_a_reaction_on_a_persons_message_asks_no_store() -> None:
    """Slack names the reacted message's author: a person's message is dropped without the
    index's round trip (with the store down, asking it would fail)."""
    svc = services(DownStore())
    verdict = triage(svc, emoji("white_check_mark", ROOT, author="U0ALICE"), Recent())
    assert verdict == Triaged(None, "reaction_not_on_bot_message")


def test_recent_forgets_the_oldest() -> None:
    recent = Recent(size=2)
    for key in (KEY, OTHER, ThreadKey(CHANNEL, "1.1")):
        recent.add(key)
    assert KEY not in recent
    assert OTHER in recent


def test_past_the_queue_limit_only_the_asker_hears_busy(
    svc: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.runtime.admission.MAX_QUEUED", 2)
    monkeypatch.setattr("bot.runtime.admission.QUEUED_NOTICE_AFTER", 0.1)
    runner = Runner(svc, Dispatcher(1, 4))  # its workers never start: the queue only fills
    asks = [Mention(CHANNEL, "U0ALICE", f"ask {i}", f"170000002{i}.000100", None) for i in range(3)]
    for ask in asks:
        runner.receive(ask)
    runner.receive(reply(OTHER))  # people talking: not work, never told anything
    chat = cast(RecordingChat, svc.chat)
    deadline = time.monotonic() + 10
    while len(chat.posts) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)  # notices go out after the ack, on the notice pool
    time.sleep(0.2)  # and nothing more comes
    assert sorted(chat.posts) == sorted(
        [(CHANNEL, QUEUED, asks[1].ts), (CHANNEL, BUSY, asks[2].ts)]
    )
    assert svc.metrics.dropped.labels("queue_full")._value.get() == 1
    assert svc.store.return_work("nobody") == 0
    assert [svc.store.take_work("r", 0.1) is not None for _ in range(3)] == [True, True, False]


def test_with_the_store_down_an_approval_on_the_bots_message_is_told_to_the_approver() -> None:
    svc = services(DownStore())
    runner = Runner(svc, Dispatcher(1, 4))
    runner.receive(emoji("white_check_mark", BOT_MESSAGE, author=BOT))
    runner.receive(emoji("white_check_mark", "1700000002.000100", author="U0ALICE"))  # a person's
    chat = cast(RecordingChat, svc.chat)
    deadline = time.monotonic() + 10
    while not chat.calls and time.monotonic() < deadline:
        time.sleep(0.01)  # the notice goes out after the ack, on the notice pool
    time.sleep(0.2)  # and nothing more comes
    assert [(m, a["channel"], a["user"]) for m, a in chat.calls] == [
        ("ephemeral", CHANNEL, "U0BOB")  # its thread is unknown: to the approver alone
    ]
    assert "session store is unavailable" in chat.calls[0][1]["text"]
