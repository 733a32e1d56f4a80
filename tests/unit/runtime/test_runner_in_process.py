"""The runner and its handlers in process: a turn, an approval, refusals, a cancel, a store
outage; each over a memory store and a real Redis (tests/unit/runtime/harness.py)."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.agent.messages import ModelRequest, ModelResponse
from bot.domain.requests import Mention, ThreadReply
from bot.domain.thread import ThreadKey
from bot.runtime.lease import dead_mark, lock_name
from bot.store.base import Store, StoreUnavailable
from bot.store.memory import MemoryStore
from bot.store.redis import RedisStore
from fakes.scripted_provider import call, reply, tools
from tests.redis_server import RedisServer
from tests.scenarios.project import git
from tests.unit.runtime.harness import ALICE, BOB, CHANNEL, DEV, MALLORY, Rig, rig, scale_dev


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Store:
    if request.param == "memory":
        return MemoryStore()
    server: RedisServer = request.getfixturevalue("shared_redis")
    return RedisStore(server.url, prefix=f"runner-{uuid.uuid4().hex[:8]}:")


@pytest.fixture
def bot(tmp_path: Path, store: Store) -> Iterator[Rig]:
    with rig(tmp_path, store) as built:
        yield built


def proposed(bot: Rig) -> ThreadKey:
    scale_dev(bot.model)
    key = bot.mention("scale grafana in dev to 3")
    bot.settle()
    return key


def test_a_mention_runs_a_turn_that_posts_the_proposal_and_the_answer(bot: Rig) -> None:
    key = proposed(bot)
    proposal = next(text for text in bot.texts(key) if "Proposal 1" in text)
    assert "environments/dev" in proposal
    assert "replicas=3" in proposal  # the git diff
    assert "replicas: 3" in proposal  # the rendered diff
    assert bot.said(key, "Set grafana's replicas in dev to 3.")
    assert bot.model.remaining == 0
    session = bot.svc.sessions.get(key)
    assert session is not None
    assert session.requester == ALICE
    assert session.state == "idle"


def test_the_first_request_queued_again_after_a_replica_died_runs_no_second_turn(
    bot: Rig,
) -> None:
    key = proposed(bot)
    posts = len(bot.texts(key))
    # A dead replica's taken work goes back on the queue: the same root mention, handled again.
    bot.mention("scale grafana in dev to 3", ts=key.thread_ts)
    bot.settle()
    assert len(bot.texts(key)) == posts  # no second turn, no notice
    session = bot.svc.sessions.get(key)
    assert session is not None
    assert len(session.proposals) == 1


CUT_REPLY = "1700000050.000001"  # the reply whose turn the dead replica was running


def cut_off_by_a_dead_replica(bot: Rig, *, declared_dead: bool) -> ThreadKey:
    """A session whose turn for a reply was running on replica `gone` when it died: the session
    is marked running with that reply taken, and `gone` still holds the thread's lease, which
    nobody renews. The reply is then delivered again, as the admission queues a dead replica's
    work again."""
    key = proposed(bot)
    session = bot.svc.sessions.get(key)
    assert session is not None
    session.state = "running"
    session.take([CUT_REPLY], continuing=False)
    bot.svc.sessions.put(session)
    assert bot.svc.store.acquire(lock_name(key), "gone-7-a1b2c3:0f0f", 60.0)
    if declared_dead:  # what the admission keeper does once gone's owner lease ran out
        bot.svc.store.put_blob(dead_mark("gone-7-a1b2c3"), b"1", 120.0)
    bot.model.add(reply("Continued where it stopped."))
    bot.runner.handle(ThreadReply(CHANNEL, ALICE, "and in prod", CUT_REPLY, key.thread_ts))
    bot.settle()
    return key


def test_a_dead_replicas_request_continues_its_cut_off_turn_at_once(bot: Rig) -> None:
    key = cut_off_by_a_dead_replica(bot, declared_dead=True)
    assert bot.said(key, "was cut off"), bot.texts(key)
    assert bot.said(key, "Continued where it stopped.")
    assert bot.svc.store.holder(lock_name(key)) is None  # taken over, then released
    session = bot.svc.sessions.get(key)
    assert session is not None
    assert session.taking == []
    assert CUT_REPLY in session.answered


def test_a_request_delivered_again_after_its_turn_answered_it_runs_nothing(bot: Rig) -> None:
    key = proposed(bot)
    bot.model.add(reply("Prod has 2 replicas."))
    again = ThreadReply(CHANNEL, ALICE, "how many in prod?", "1700000060.000001", key.thread_ts)
    bot.runner.handle(again)
    bot.settle()
    posts, asked = len(bot.texts(key)), len(bot.model.requests)
    # The replica that ran it stopped before marking it done: the queue hands it out again.
    bot.runner.handle(again)
    bot.settle()
    assert (len(bot.texts(key)), len(bot.model.requests)) == (posts, asked)


def test_a_turn_that_continues_a_cut_off_one_answers_its_requests_too(bot: Rig) -> None:
    key = proposed(bot)
    session = bot.svc.sessions.get(key)
    assert session is not None
    session.state = "running"  # cut off while answering CUT_REPLY, on this replica's restart
    session.take([CUT_REPLY], continuing=False)
    bot.svc.sessions.put(session)
    bot.model.add(reply("Picked up."))
    bot.reply(key, "are you there?")  # a new reply continues the cut-off turn
    bot.settle()
    assert bot.said(key, "was cut off")
    asked = len(bot.model.requests)
    # ... so the cut-off turn's own request, queued again afterwards, is not run a second time.
    bot.runner.handle(ThreadReply(CHANNEL, ALICE, "and in prod", CUT_REPLY, key.thread_ts))
    bot.settle()
    assert len(bot.model.requests) == asked


def test_a_thread_held_by_a_replica_not_declared_dead_waits_for_its_lease(bot: Rig) -> None:
    key = cut_off_by_a_dead_replica(bot, declared_dead=False)
    assert bot.said(key, "Noted"), bot.texts(key)
    assert not bot.said(key, "Continued where it stopped.")
    assert bot.svc.store.holder(lock_name(key)) == "gone-7-a1b2c3:0f0f"


def test_a_mention_with_a_title_names_the_session_by_it(bot: Rig) -> None:
    bot.model.add(reply("Loki in dev runs 1 replica."))
    shortcut = Mention(
        CHANNEL,
        ALICE,
        "About this message in the thread (from someone):\n> loki is out of memory",
        "1700000070.000001",
        None,
        "loki is out of memory",
    )
    bot.runner.handle(shortcut)
    bot.settle()
    session = bot.svc.sessions.get(shortcut.key)
    assert session is not None
    assert session.request == "loki is out of memory"  # the PR's title, not "About this..."
    assert session.branch.endswith("-loki-is-out-of-memory")
    assert "About this message" in repr(bot.model.requests[0].messages[0])  # what the model reads


def test_an_approval_opens_the_pull_request_on_github(bot: Rig) -> None:
    key = proposed(bot)
    bot.react(bot.proposal_ts(key), user=BOB)
    bot.settle()
    assert bot.said(key, "Opened pull request #"), bot.texts(key)
    pull = next(iter(bot.github.repos["acme/infra"].pulls.values()))
    assert pull.head.startswith("tanka-bot/")
    assert ALICE in pull.body
    assert BOB in pull.body
    assert "replicas=3" in git(bot.origin, "show", f"{pull.head}:{DEV}")


def test_who_may_neither_steer_nor_approve_is_refused_and_nothing_runs(bot: Rig) -> None:
    refused = bot.mention("scale grafana in dev to 9", user=MALLORY)
    bot.settle()
    assert bot.said(refused, f"<@{MALLORY}>")
    assert bot.said(refused, "allowed_users")
    assert bot.svc.sessions.get(refused) is None
    assert bot.model.requests == []

    key = proposed(bot)
    bot.react(bot.proposal_ts(key), user=MALLORY)
    bot.settle()
    assert bot.said(key, "not one of the approvers"), bot.texts(key)
    assert bot.github.repos["acme/infra"].pulls == {}


def test_a_refusal_repeated_to_the_same_person_is_said_to_them_alone(bot: Rig) -> None:
    key = proposed(bot)
    for _ in range(3):  # clicking Approve again and again
        bot.react(bot.proposal_ts(key), user=MALLORY)
        bot.settle()
    refusals = [t for t in bot.texts(key) if "not one of the approvers" in t]
    assert len(refusals) == 1  # the approvers it names are pinged once
    ephemeral = [a for m, a in bot.chat.calls if m == "ephemeral" and a["user"] == MALLORY]
    assert len(ephemeral) == 2
    assert all("not one of the approvers" in a["text"] for a in ephemeral)
    assert bot.github.repos["acme/infra"].pulls == {}


def test_cancel_stops_the_running_turn_before_the_next_model_call(bot: Rig) -> None:
    key = ThreadKey(CHANNEL, "1700000000.000042")

    def cancel_meanwhile(request: ModelRequest) -> ModelResponse:
        bot.reply(key, "cancel")  # arrives while the turn runs, as a listener would hand it
        return tools(call("file_edit", path=DEV, old_text="replicas=1", new_text="replicas=5"))

    bot.model.add(cancel_meanwhile, reply("not reached"))
    bot.mention("scale grafana in dev to 5", ts=key.thread_ts)
    bot.settle()
    assert bot.said(key, f"<@{ALICE}> cancelled the running turn"), bot.texts(key)
    assert bot.model.remaining == 1  # the loop stopped before asking the model again
    assert not bot.said(key, "not reached")
    session = bot.svc.sessions.get(key)
    assert session is not None
    assert session.state == "idle"


class DownStore(MemoryStore):
    """A memory store whose sessions cannot be read, as when Redis is unreachable."""

    def load(self, key: ThreadKey) -> str | None:
        raise StoreUnavailable("redis at 127.0.0.1:6379: Connection refused")

    def has_session(self, key: ThreadKey) -> bool:
        raise StoreUnavailable("redis at 127.0.0.1:6379: Connection refused")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port  # closed again: nothing listens there


@pytest.mark.parametrize("outage", ["memory", "redis"])
def test_a_store_outage_tells_the_thread_why_and_starts_nothing(
    tmp_path: Path, outage: str
) -> None:
    down: Store = (
        DownStore() if outage == "memory"
        else RedisStore(f"redis://127.0.0.1:{closed_port()}/0", prefix="down:")
    )  # fmt: skip
    with rig(tmp_path, down) as bot:
        scale_dev(bot.model)
        key = bot.mention("scale grafana in dev to 3")
        bot.settle()
        [text] = bot.texts(key)
        assert "my session store is unavailable" in text
        assert "127.0.0.1:" in text
        assert "try again in a minute" in text
        assert bot.model.requests == []


def test_a_models_answer_pings_nobody_in_any_session(bot: Rig) -> None:
    # The model reads untrusted text in every session (repository files, tool output, a message
    # quoted by the tanka_ask shortcut), which may talk it into a broadcast in the bot's name.
    bot.model.add(reply("Done. <!channel> <!here|here> <!subteam^S0SRE> see <@U0ALICE>"))
    key = bot.mention("what does grafana in dev run?")
    bot.settle()
    answer = next(text for text in bot.texts(key) if "Done." in text)
    assert "<!" not in answer
    assert "&lt;!channel&gt;" in answer
    assert "<@U0ALICE>" in answer  # naming a person stays a mention
