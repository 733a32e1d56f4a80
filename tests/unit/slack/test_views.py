"""The new-env modal and the Home tab as pure functions of store values, within Slack's limits
(checked by the Slack fake's own rules, fakes.slack_views)."""

from __future__ import annotations

import json

import pytest

from bot.domain.proposal import Proposal
from bot.domain.sessions import PullRequestRecord, Session
from bot.handlers.home import view_for
from bot.slack import interactive
from bot.slack.views import HOME_SESSIONS, new_env_modal
from fakes.slack_views import block_problems, view_problems

URL = "https://acme.slack.com/"


def session(n: int, request: str = "scale grafana", **extra: object) -> Session:
    return Session.model_validate({
        "channel": "C0DEPLOY", "thread_ts": f"17000000{n:02d}.000100", "requester": "U0ALICE",
        "request": request, "created": float(n), "updated": float(n), "base_branch": "main",
        **extra,
    })  # fmt: skip


def record(ts: str = "1700000099.000100", **extra: object) -> Proposal:
    return Proposal.model_validate({"ts": ts, "base_commit": "a" * 40, "tree": "b" * 40,
                                          "diff_hash": "c", "files": ["x"], **extra})  # fmt: skip


@pytest.mark.parametrize("count", [0, 3, 250])
def test_the_modal_is_valid_with_any_number_of_environments(count: int) -> None:
    envs = [f"environments/env-{i}" for i in range(count)] + ["environments/" + "x" * 90]
    view = new_env_modal("C0DEPLOY", envs)
    assert view_problems(view, surface="modal") == []
    assert json.loads(view["private_metadata"]) == {"channel": "C0DEPLOY"}
    ids = [b["block_id"] for b in view["blocks"]]
    assert ids[0] == "name"
    assert ids[-1] == "instructions"
    assert ("copy_from" in ids) == (count > 0)  # the over-long name is never an option


def test_the_home_is_valid_and_lists_the_newest_sessions_first_lines_and_links() -> None:
    own = [session(n, f"ask-{n} <!channel>\nsecond line" + "y" * 300) for n in range(40, 0, -1)]
    own[0].pull_request = PullRequestRecord(number=7, url="https://gh/pr/7", branch="b")
    own[1].proposals = [record()]
    own[2].state = "running"
    waiting = [session(n, proposals=[record()], requester="U0BOB") for n in range(50)]
    view = view_for(own, waiting, URL)
    assert view_problems(view, surface="home") == []
    text = json.dumps(view, ensure_ascii=False)
    assert "ask-40 &lt;!channel&gt;" in text  # a request's words are shown, not pinged
    assert "<!channel>" not in text
    assert "second line" not in text
    assert "ask-30 " not in text  # only the newest HOME_SESSIONS
    assert view["blocks"][1]["text"]["text"].count("ask-") == HOME_SESSIONS
    assert "pull request #7 open" in text
    assert "proposal 1 waiting for approval" in text
    assert "running" in text
    assert f"{URL}archives/C0DEPLOY/p1700000040000100" in text
    assert "… and 30 more" in text  # 50 waiting, 20 listed


def test_an_empty_home_says_so_in_each_section() -> None:
    view = view_for([], [], URL)
    assert view_problems(view, surface="home") == []
    text = json.dumps(view, ensure_ascii=False)
    assert "No session yet" in text
    assert "Nothing waits for your approval." in text
    assert "No open pull request." in text


def test_buttons_and_status_blocks_are_valid_in_a_message_and_resolving_drops_them() -> None:
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "*Proposal 1*"}},
              interactive.proposal_actions()]  # fmt: skip
    for i, block in enumerate([*blocks, *interactive.status_blocks("working")]):
        assert block_problems(f"/blocks/{i}", block, surface="message") == []
    done = interactive.resolved(blocks, "approved")
    assert [b["type"] for b in done] == ["section", "context"]
    ids = [e["action_id"] for e in blocks[1]["elements"]]
    assert ids == ["tanka_approve", "tanka_cancel"]
    assert blocks[1]["elements"][0]["style"] == "primary"


def test_the_fake_refuses_what_slack_refuses() -> None:
    modal = new_env_modal("C0DEPLOY", [])
    assert view_problems({**modal, "title": {"type": "plain_text", "text": "x" * 25}},
                         surface="modal")  # fmt: skip
    assert view_problems({"type": "home", "blocks": modal["blocks"]}, surface="home")  # inputs
    many = [{"type": "divider"}] * 101
    assert view_problems({"type": "home", "blocks": many}, surface="home")
    header = {"type": "header", "text": {"type": "plain_text", "text": "h" * 151}}
    assert view_problems({"type": "home", "blocks": [header]}, surface="home")
    section = {"type": "section", "text": {"type": "mrkdwn", "text": "s" * 3001}}
    assert view_problems({"type": "home", "blocks": [section]}, surface="home")


def test_a_full_proposal_with_its_buttons_stays_within_slacks_limits() -> None:
    from bot.slack import blocks  # noqa: PLC0415

    full = Proposal(
        base_commit="a", tree="b", diff_hash="c", files=("a",), diff="+x\n" * 800,
        note="n" * 2900, review="headline\n" + "r" * 9000, checks="ok\n" + "c" * 2900,
    )  # fmt: skip
    proposal = blocks.proposal(
        full, number=1, envs=[], rendered="", emoji="ok", approvals="a" * 2800
    ).blocks
    assert blocks.block_chars(proposal) > blocks.BLOCKS_TEXT_LIMIT - 100  # it was fitted
    assert blocks.block_chars(proposal) <= blocks.BLOCKS_TEXT_LIMIT - blocks.BUTTONS_ROOM
    shown = [*proposal, interactive.proposal_actions()]
    assert len(shown) <= blocks.MAX_BLOCKS
    assert blocks.block_chars(shown) <= blocks.BLOCKS_TEXT_LIMIT


def test_an_alerts_proposal_waiting_names_its_route_not_a_broken_user_mention() -> None:
    waiting = [session(1, "alert KubeOOM", proposals=[record()], requester="alert:oom")]
    text = view_for([], waiting, URL)["blocks"][4]["text"]["text"]
    assert "by alert route `oom`" in text
    assert "<@alert:" not in text
