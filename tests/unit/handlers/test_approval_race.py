"""A withdrawn approval never counts, whatever order two replicas handle the reaction's add and
removal in (Slack does not order deliveries), with the replicas sharing memory or a real Redis."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from bot.config import load_settings
from bot.domain.proposal import Proposal
from bot.domain.requests import Reaction
from bot.domain.sessions import Session
from bot.handlers.approve import approve, withdraw
from bot.services import Services
from bot.store import Store
from bot.store.memory import MemoryStore
from bot.store.redis import RedisStore
from fakes.chat import RecordingChat
from tests.unit.services import bare_services

CHANNEL, THREAD, PROPOSAL_TS = "C0DEPLOY1", "1700000000.000100", "1700000050.000100"
BOB, CAROL = "U0BOB", "U0CAROL"
ADDED, REMOVED = 1700000100.000001, 1700000100.000002  # Bob's reaction, then its removal


@pytest.fixture(params=["memory", "redis"])
def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[Services, Services, RecordingChat]]:
    """Two services over one store (one MemoryStore, or two RedisStores on one server)."""
    rules = {"approval_rules": [{"envs": ["environments/*"], "approvers": [BOB, CAROL, "U0DAVE"],
                                 "min_approvals": 2}]}  # fmt: skip
    (tmp_path / "settings.yaml").write_text(yaml.safe_dump(rules))
    settings = load_settings({"TANKA_BOT_CONFIG": str(tmp_path / "settings.yaml")})
    chat = RecordingChat()
    stores: list[Store]
    if request.param == "memory":
        stores = [MemoryStore()] * 2
    else:
        server = request.getfixturevalue("shared_redis")
        prefix = f"race-{uuid.uuid4().hex[:8]}:"
        stores = [RedisStore(server.url, prefix=prefix) for _ in range(2)]

    def services(store: Store, replica: str) -> Services:
        return bare_services(settings, store=store, chat=chat, replica=replica)

    yield services(stores[0], "r1"), services(stores[1], "r2"), chat
    for store in stores:
        store.close()


def session(*, with_proposal: bool = True) -> Session:
    record = Proposal(ts=PROPOSAL_TS, base_commit="a" * 40, tree="b" * 40, diff_hash="c",
                            files=("environments/dev/main.jsonnet",),
                            affected=("environments/dev",))  # fmt: skip
    return Session(channel=CHANNEL, thread_ts=THREAD, requester="U0ALICE", request="scale dev",
                   created=1.0, updated=1.0, base_branch="main",
                   proposals=[record] if with_proposal else [])  # fmt: skip


def reaction(user: str, *, added: bool, at: float) -> Reaction:
    return Reaction(CHANNEL, user, "white_check_mark", PROPOSAL_TS, added, at)


def same(text: str) -> str:
    return text


Replicas = tuple[Services, Services, RecordingChat]
Handler = Callable[[Services, Session, Reaction, Callable[[str], str]], None]


@pytest.mark.parametrize(
    "proposal_saved",
    [True, False],
    ids=["removal-first", "removal-before-the-turn-saved-the-proposal"],
)
def test_a_removal_handled_before_its_add_wins(replicas: Replicas, proposal_saved: bool) -> None:
    one, two, chat = replicas
    # The removal reaches replica 1, possibly while the turn that posted the proposal has not
    # saved it yet (a withdrawal takes no lease); the add, older, reaches replica 2 later.
    withdraw(one, session(with_proposal=proposal_saved), reaction(BOB, added=False, at=REMOVED),
             same)  # fmt: skip
    approve(two, session(), reaction(BOB, added=True, at=ADDED), same)
    assert chat.posts[-1][1] == (
        f"<@{BOB}> not opened: you removed this reaction after adding it, so the approval does "
        "not count; react again to approve"
    )
    approve(one, session(), reaction(CAROL, added=True, at=ADDED), same)
    assert f"<@{CAROL}> approved proposal 1: 1 more approval needed" in chat.posts[-1][1]


def test_the_usual_order_withdraws_and_a_new_reaction_counts_again(replicas: Replicas) -> None:
    one, two, chat = replicas
    approve(one, session(), reaction(BOB, added=True, at=ADDED), same)
    assert f"<@{BOB}> approved proposal 1: 1 more approval needed" in chat.posts[-1][1]
    withdraw(two, session(), reaction(BOB, added=False, at=REMOVED), same)
    assert "withdrew their approval of proposal 1: 2 more approvals needed" in chat.posts[-1][1]
    approve(two, session(), reaction(BOB, added=True, at=REMOVED + 1), same)
    assert f"<@{BOB}> approved proposal 1: 1 more approval needed" in chat.posts[-1][1]
