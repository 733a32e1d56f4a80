"""The guardrails fail closed: with the guard store down, an approval is refused (saying so)
and a turn under a budget does not start; a proposal is still shown, saying the guards will be
checked when it is approved."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from bot.config import load_settings
from bot.domain.proposal import Proposal
from bot.domain.sessions import Session
from bot.handlers import guard_budget, guard_gate
from bot.services import Services
from bot.store.base import StoreUnavailable
from bot.store.guard_store import GuardStore
from fakes.chat import RecordingChat
from tests.unit.services import bare_services


class DownGuards:
    def __getattr__(self, name: str) -> Any:
        def down(*_: object, **__: object) -> None:
            raise StoreUnavailable("Redis at 127.0.0.1:6379 is unavailable: refused")

        return down


@pytest.fixture
def svc(tmp_path: Path) -> Services:
    config = tmp_path / "guards.yaml"
    config.write_text("budgets:\n  - channels: all\n    daily_usd: 5\n")
    settings = load_settings({"TANKA_BOT_CONFIG": str(config)})
    return bare_services(settings, guards=cast(GuardStore, DownGuards()))


SESSION = Session(
    channel="C0DEPLOY",
    thread_ts="1.0",
    requester="U0ALICE",
    request="r",
    created=1.0,
    updated=1.0,
    base_branch="main",
)
PROPOSAL = Proposal(
    ts="2.0",
    base_commit="a" * 40,
    tree="b" * 40,
    diff_hash="c" * 64,
    files=("x",),
    envs=("environments/prod",),
    affected=("environments/prod",),
)


def test_an_approval_is_refused_when_the_guards_cannot_be_read(svc: Services) -> None:
    found = guard_gate.refusal(svc, SESSION, PROPOSAL, "U0BOB")
    assert found is not None
    assert found.guard == "store"
    assert "the guardrails could not be checked" in found.text


def test_a_proposal_is_still_shown_and_says_so(svc: Services) -> None:
    note = guard_gate.proposal_note(svc, SESSION, PROPOSAL)
    assert "could not be checked now" in note


def test_a_turn_under_a_budget_does_not_start(svc: Services) -> None:
    assert not guard_budget.admitted(svc, SESSION)
    chat = cast(RecordingChat, svc.chat)
    assert "the model budgets could not be checked" in chat.posts[0][1]
