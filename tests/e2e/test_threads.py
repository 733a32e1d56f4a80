"""Threads as sessions: follow-ups, duplicates, stale approvals, changed checkouts, cancel and
`/tanka`, each over real HTTP into `tanka-bot serve`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.anthropic_server import (
    anthropic_message,
    stream_events,
    text_block,
    tool_use_block,
)
from fakes.http_server import Reply
from fakes.slack_events import message
from tests.e2e.harness import ALICE, BOB, CHANNEL, Stack, stack
from tests.scenarios.models import Call

DEV = "environments/dev/main.jsonnet"
PROD = "environments/prod/main.jsonnet"


def slow(message: dict[str, object], seconds: float) -> Reply:
    """A streamed model answer (the provider streams) that starts after `seconds`."""
    return Reply(events=stream_events(message), delay=seconds)


def _edit(model_stack: Stack, call_id: str, path: str, old: str, new: str, *, answer: str) -> None:
    model_stack.model.calls(
        Call(call_id, "file_edit", {"path": path, "old_text": old, "new_text": new})
    )
    model_stack.model.answer(answer)


def test_a_follow_up_reply_continues_the_session_and_updates_the_same_pull_request(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        _edit(s, "c1", DEV, "replicas=1", "replicas=3", answer="Dev now runs 3.")
        root = s.mention("scale grafana in dev to 3")
        first = s.proposal(root.ts, 1)
        s.react(first.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")

        _edit(s, "c2", PROD, "replicas=2", "replicas=4", answer="Prod now runs 4.")
        s.reply(root.ts, "and prod to 4 please")  # no mention: the thread has a session
        second = s.proposal(root.ts, 2)
        assert "environments/prod" in str(second.blocks)
        # The second request reached the model with the first turn's history.
        assert "scale grafana in dev to 3" in json.dumps(s.model.bodies()[-1]["messages"])

        s.react(first.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "that is proposal 1, not the latest")
        s.react(second.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Updated pull request #1")
        assert len(s.github.repos["acme/infra"].pulls) == 1
        assert s.slack.violations == []


def test_retries_and_the_mention_twin_cause_one_turn(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        bot = s.start_bot()
        s.model.answer("Nothing to change.")
        root = s.slack.add_message(CHANNEL, "<@U0BOT> what is deployed in dev?", user=ALICE)
        sent = s.sender.app_mention(root)
        s.sender.retry(sent, 1)  # Slack's redelivery: same event_id
        s.sender.retry(sent, 2)
        s.sender.send(message(channel=CHANNEL, user=ALICE, text=root.text, ts=root.ts))  # the twin
        s.wait_text(root.ts, "Nothing to change.")
        s.slack.wait_for(
            lambda: "tanka_bot_events_deduplicated_total 3.0" in bot.get("/metrics")[1]
        )
        assert s.model.request_count() == 1
        assert [t for t in s.bot_texts(root.ts) if "Nothing to change." in t] == [
            "Nothing to change."
        ]


def test_approval_after_the_checkout_changed_opens_nothing(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        _edit(s, "c1", DEV, "replicas=1", "replicas=3", answer="Done.")
        root = s.mention("scale grafana in dev to 3")
        proposal = s.proposal(root.ts)
        checkout = next((tmp_path / "work" / "sessions").iterdir())
        (checkout / DEV).write_text(
            (checkout / DEV).read_text().replace("replicas=3", "replicas=9")
        )
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "the checkout changed since the proposal was shown")
        assert s.github.repos["acme/infra"].pulls == {}


def test_the_requester_may_not_approve_when_self_approval_is_off(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot({"TANKA_BOT_ALLOW_SELF_APPROVAL": "false"})
        _edit(s, "c1", DEV, "replicas=1", "replicas=3", answer="Done.")
        root = s.mention("scale grafana in dev to 3")
        proposal = s.proposal(root.ts)
        s.react(proposal.ts, "white_check_mark", user=ALICE)
        s.wait_text(root.ts, "may not approve their own sessions")
        assert s.github.repos["acme/infra"].pulls == {}


def test_cancel_stops_the_running_turn_and_keeps_its_edits(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        s.model.calls(
            Call(
                "c1", "file_edit", {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=3"}
            )
        )
        later = anthropic_message(
            text_block("Now prod."),
            tool_use_block(
                "c2",
                "file_edit",
                {"path": PROD, "old_text": "replicas=2", "new_text": "replicas=5"},
            ),
        )
        s.model.fake.script(slow(later, 60))  # the model "thinks" for a minute
        root = s.mention("scale everything")
        s.slack.wait_for(lambda: s.model.request_count() >= 2, timeout=30)
        s.reply(root.ts, "stop")
        s.wait_text(root.ts, "cancelled the running turn")
        s.wait_text(root.ts, "cancelled; edits made so far are kept", timeout=15)
        proposal = s.proposal(root.ts)
        assert "replicas=3" in str(proposal.blocks)
        assert "replicas=5" not in str(proposal.blocks)


def test_the_cancel_reaction_on_the_status_message_stops_the_turn(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        s.model.fake.script(slow(anthropic_message(text_block("too late")), 60))
        root = s.mention("think for a long time")
        status = s.wait_text(root.ts, "working on it")
        s.slack.wait_for(lambda: s.model.request_count() >= 1, timeout=30)
        s.react(status.ts, "x", user=ALICE)
        s.wait_text(root.ts, "cancelled the running turn")
        s.wait_text(root.ts, ":octagonal_sign: cancelled; edits made so far are kept", timeout=15)
        assert "too late" not in " ".join(s.bot_texts(root.ts))


def test_a_reply_during_a_turn_is_queued_and_answered_in_the_next_turn(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        s.model.fake.script(slow(anthropic_message(text_block("First answer.")), 3))
        s.model.answer("Second answer, about the note.")
        root = s.mention("first question")
        s.slack.wait_for(lambda: s.model.request_count() >= 1, timeout=30)
        s.reply(root.ts, "a note while you work")
        s.wait_text(root.ts, "Noted")
        s.wait_text(root.ts, "Second answer, about the note.")
        assert "a note while you work" in json.dumps(s.model.bodies()[-1]["messages"][-1])


# With Redis, the command is queued and its turn runs in the work process (bot.work_process).
@pytest.mark.parametrize("redis", [False, True], ids=["memory", "redis"])
def test_slash_new_env_creates_an_environment_that_renders(tmp_path: Path, redis: bool) -> None:
    with stack(tmp_path, redis=redis) as s:
        s.start_bot()
        main = (
            "local app = import 'app.libsonnet';\n\n{\n  grafana: app.deployment('grafana'),\n}\n"
        )
        spec = Path(tmp_path / "project" / "environments" / "dev" / "spec.json").read_text()
        s.model.calls(
            Call("w1", "file_write", {"path": "environments/staging/main.jsonnet",
                                      "content": main}),
            Call("w2", "file_write", {"path": "environments/staging/spec.json",
                                      "content": spec.replace("dev", "staging")}),
        )  # fmt: skip
        s.model.answer("Created environments/staging like dev.")
        response = s.sender.command("new-env staging", channel_id=CHANNEL, user_id=ALICE)
        assert response.response.status == 200
        assert "staging" in response.response.text
        root = s.slack.wait_for(
            lambda: next(
                (m for m in s.slack.messages(CHANNEL) if "new environment `staging`" in m.text),
                None,
            )
        )
        proposal = s.proposal(root.ts)
        assert "environments/staging" in str(proposal.blocks)
        assert "environment added" in str(proposal.blocks)
        prompt = json.dumps(s.model.bodies()[0]["messages"][0])
        assert "staging" in prompt
        assert "conventions" in prompt


@pytest.mark.parametrize("redis", [False, True], ids=["memory", "redis"])
def test_slash_help_envs_and_status(tmp_path: Path, redis: bool) -> None:
    with stack(tmp_path, redis=redis) as s:
        s.start_bot()
        help_ = s.sender.command("help", channel_id=CHANNEL, user_id=ALICE).response
        assert "/tanka new-env" in help_.text
        unknown = s.sender.command("deploy prod", channel_id=CHANNEL, user_id=ALICE).response
        assert "unknown subcommand" in unknown.text
        s.sender.command("envs", channel_id=CHANNEL, user_id=ALICE)
        envs = s.slack.wait_for(
            lambda: next((e for e in s.slack.ephemerals if "Environments" in e.text), None)
        )
        assert "environments/dev" in envs.text
        assert "environments/prod" in envs.text
        s.model.answer("Hello.")
        root = s.mention("hi")
        s.wait_text(root.ts, "Hello.")
        s.sender.command("status", channel_id=CHANNEL, user_id=ALICE)
        status = s.slack.wait_for(
            lambda: next((e for e in s.slack.ephemerals if "Active sessions" in e.text), None)
        )
        assert "<@U0ALICE>" in status.text
