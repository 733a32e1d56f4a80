"""The Approve and Cancel buttons, over real HTTP into `tanka-bot serve`: signed block_actions
payloads, each the same act as the matching emoji."""

from __future__ import annotations

from pathlib import Path

from fakes.anthropic_server import anthropic_message, text_block
from fakes.slack_interactions import block_actions, send_interaction
from fakes.slack_server import SlackMessage
from tests.e2e.harness import ALICE, BOB, CHANNEL, MALLORY, Stack, stack
from tests.e2e.test_teams import settings_file
from tests.e2e.test_threads import slow
from tests.scenarios.models import Call

DEV = "environments/dev/main.jsonnet"
REPO = "acme/infra"


def click(s: Stack, message: SlackMessage, action_id: str, *, user: str) -> None:
    sent = send_interaction(s.sender, block_actions(
        user=user, channel=CHANNEL, message_ts=message.ts, action_id=action_id,
        thread_ts=message.thread_ts,
    ))  # fmt: skip
    assert sent.response.status == 200, sent.response.text  # not Bolt's 404


def _actions(message: SlackMessage) -> list[str]:
    return [
        e["action_id"]
        for b in message.blocks or []
        if b.get("type") == "actions"
        for e in b["elements"]
    ]


def _propose(s: Stack, old: str, new: str, answer: str) -> None:
    s.model.calls(Call("c1", "file_edit", {"path": DEV, "old_text": old, "new_text": new}))
    s.model.answer(answer)


def test_clicks_are_the_approve_emoji_one_pull_request_and_the_message_loses_its_buttons(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        _propose(s, "replicas=1", "replicas=3", "Set grafana's replicas in dev to 3.")
        root = s.mention("scale grafana in dev to 3")
        proposal = s.proposal(root.ts)
        assert _actions(proposal) == ["tanka_approve", "tanka_cancel"]
        style = next(b for b in proposal.blocks or [] if b["type"] == "actions")["elements"][0]
        assert style.get("style") == "primary"

        click(s, proposal, "tanka_approve", user=MALLORY)  # a stranger
        refused = s.wait_text(root.ts, f"<@{MALLORY}> not opened")
        assert "approve" in refused.text  # the reason: who may approve
        assert s.github.repos[REPO].pulls == {}

        # Two clicks and the emoji, by the approver: one pull request.
        click(s, proposal, "tanka_approve", user=BOB)
        click(s, proposal, "tanka_approve", user=BOB)
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        # The two others are refused: once in the thread, then to Bob alone (the same refusal).
        again = "already in pull request #1"
        s.slack.wait_for(lambda: [
            sum(again in m.text for m in s.slack.bot_messages(CHANNEL, root.ts)),
            sum(again in e.text for e in s.slack.ephemerals if e.user == BOB),
        ] == [1, 1] or None, 30)  # fmt: skip
        assert list(s.github.repos[REPO].pulls) == [1]

        edited = s.slack.message(CHANNEL, proposal.ts)
        assert _actions(edited) == []  # no button left
        last = (edited.blocks or [])[-1]
        assert last["type"] == "context"
        line = last["elements"][0]["text"]
        assert f"approved by <@{BOB}>" in line
        assert "pull request #1" in line
        assert "Rendered-manifest diff" in str(edited.blocks)  # the proposal itself is kept
        assert s.slack.violations == []


def test_a_click_on_an_older_proposal_is_refused_and_that_proposal_says_a_newer_one_exists(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        _propose(s, "replicas=1", "replicas=3", "Set to 3.")
        root = s.mention("scale grafana in dev to 3")
        first = s.proposal(root.ts)
        _propose(s, "replicas=3", "replicas=4", "Set to 4.")
        s.reply(root.ts, "make it 4")
        s.proposal(root.ts, 2)

        def updated() -> SlackMessage | None:
            message = s.slack.message(CHANNEL, first.ts)
            return None if _actions(message) else message

        older = s.slack.wait_for(updated, 30)
        assert "Proposal 2 below replaces this one" in str(older.blocks)
        click(s, first, "tanka_approve", user=BOB)  # a click the fake's stale copy still offers
        refused = s.wait_text(root.ts, f"<@{BOB}> not opened")
        assert "not the latest" in refused.text
        assert s.github.repos[REPO].pulls == {}


def test_cancel_on_the_status_message_stops_the_running_turn(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        s.model.fake.script(slow(anthropic_message(text_block("too late")), 60))
        root = s.mention("think for a long time")
        status = s.wait_text(root.ts, "working on it")
        assert _actions(status) == ["tanka_cancel"]
        s.slack.wait_for(lambda: s.model.request_count() >= 1, timeout=30)
        click(s, status, "tanka_cancel", user=ALICE)
        cancelled = s.wait_text(root.ts, "cancelled the running turn")
        assert f"<@{ALICE}>" in cancelled.text
        s.wait_text(root.ts, ":octagonal_sign: cancelled; edits made so far are kept", timeout=15)
        assert "too late" not in " ".join(s.bot_texts(root.ts))
        assert _actions(s.slack.message(CHANNEL, status.ts)) == []  # the button went with it


def test_a_cancel_click_by_someone_who_may_not_steer_is_refused_with_the_reason(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        s.start_bot(settings_file(tmp_path, {"allowed_users": [ALICE]}))
        s.model.fake.script(slow(anthropic_message(text_block("Finished.")), 4))
        root = s.mention("think for a while")
        status = s.wait_text(root.ts, "working on it")
        s.slack.wait_for(lambda: s.model.request_count() >= 1, timeout=30)
        click(s, status, "tanka_cancel", user=MALLORY)
        refusal = s.slack.wait_for(lambda: s.slack.ephemerals, 10)[0]
        assert refusal.user == MALLORY
        assert refusal.text.startswith("Not cancelled: you are not on the list")
        s.wait_text(root.ts, "Finished.")  # the turn ran to its end
        assert "cancelled the running turn" not in " ".join(s.bot_texts(root.ts))
