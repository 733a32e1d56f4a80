"""What an operator must trust: signatures, crashes and restarts, Redis outages, Socket Mode."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from fakes.anthropic_server import (
    anthropic_message,
    stream_events,
    text_block,
    tool_use_block,
)
from fakes.http_server import Reply
from fakes.slack_events import app_mention, event_callback, post_signed, reaction_added
from tests.e2e.harness import ALICE, BOB, CHANNEL, SIGNING_SECRET, stack
from tests.scenarios.models import Call

DEV = "environments/dev/main.jsonnet"
PROD = "environments/prod/main.jsonnet"


def _callback(event: dict[str, object], event_id: str) -> dict[str, object]:
    return event_callback(
        event, event_id=event_id, team_id="T0TEAM", api_app_id="A0APP", bot_user_id="U0BOT"
    )


def test_forged_stale_and_unsigned_requests_get_401_and_a_log_line_without_the_secret(
    tmp_path: Path,
) -> None:
    with stack(tmp_path) as s:
        bot = s.start_bot()
        root = s.slack.add_message(CHANNEL, "<@U0BOT> hi", user=ALICE)
        body = json.dumps(
            _callback(
                app_mention(channel=CHANNEL, user=ALICE, text=root.text, ts=root.ts), "EvForged"
            )
        ).encode()
        url = bot.url + "/slack/events"
        forged = post_signed(url, body, "application/json", "not-the-secret")
        stale = post_signed(url, body, "application/json", SIGNING_SECRET, int(time.time()) - 600)
        unsigned = post_signed(
            url, body, "application/json", SIGNING_SECRET, headers={"X-Slack-Signature": ""}
        )
        assert [forged.status, stale.status, unsigned.status] == [401, 401, 401]
        time.sleep(0.5)
        assert s.model.request_count() == 0
        assert s.slack.bot_messages(CHANNEL) == []
        log = bot.log()
        assert log.count("refused a Slack request") == 3
        assert SIGNING_SECRET not in log
        assert 'tanka_bot_errors_total{kind="signature"} 3.0' in bot.get("/metrics")[1]


def test_a_killed_process_loses_no_edit_and_the_thread_continues_after_restart(
    tmp_path: Path,
) -> None:
    with stack(tmp_path, redis=True) as s:
        s.start_bot()
        s.model.calls(
            Call(
                "c1", "file_edit", {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=3"}
            )
        )
        never = anthropic_message(text_block("…"))
        s.model.fake.script(Reply(events=stream_events(never), delay=120))  # hangs until the kill
        root = s.mention("scale dev to 3, then think hard")
        s.slack.wait_for(lambda: s.model.request_count() >= 2, timeout=30)
        assert s.bot is not None
        s.bot.stop(signal.SIGKILL)

        # Another replica: its own work directory, the same Redis.
        s.start_bot({"TANKA_BOT_WORKDIR": str(tmp_path / "replica-2")})
        s.model.calls(
            Call(
                "c2",
                "file_edit",
                {"path": PROD, "old_text": "replicas=2", "new_text": "replicas=4"},
            )
        )
        s.model.answer("Dev is at 3 and prod at 4.")
        # Nobody writes: once the dead replica's owner lease (TANKA_BOT_LEASE_TTL=3) runs out,
        # this one queues its request again, takes its thread over and continues the turn.
        s.wait_text(root.ts, "was cut off")
        proposal = s.proposal(root.ts)
        blocks = str(proposal.blocks)
        assert "replicas=3" in blocks  # the edit made before the kill survived
        assert "replicas=4" in blocks
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")


def test_redis_down_is_answered_and_reported_then_recovered(tmp_path: Path) -> None:
    with stack(tmp_path, redis=True) as s:
        bot = s.start_bot()
        assert bot.get("/readyz")[0] == 200
        assert s.redis is not None
        s.redis.stop()
        status, reason = bot.get("/readyz")
        assert status == 503
        assert "session store" in reason
        root = s.mention("scale dev")
        s.wait_text(root.ts, "can't take work right now")
        assert s.model.request_count() == 0

        s.redis.start()
        s.slack.wait_for(lambda: bot.get("/readyz")[0] == 200, timeout=20)
        s.model.answer("Back in business.")
        again = s.mention("scale dev")
        s.wait_text(again.ts, "Back in business.")
        assert "redis://" not in bot.log().replace(s.redis.url.split("@")[-1], "")


def test_socket_mode_serves_the_same_bot_and_still_answers_health(tmp_path: Path) -> None:
    with stack(tmp_path, slack_options={"socket_mode": True}) as s:
        bot = s.start_bot(socket_mode=True)
        assert s.slack.socket_mode is not None
        s.slack.socket_mode.wait_connected()
        assert bot.get("/healthz")[0] == 200
        assert bot.get("/readyz")[0] == 200
        assert bot.get("/slack/events")[0] == 404  # no HTTP endpoint for Slack in Socket Mode
        s.model.calls(
            Call(
                "c1", "file_edit", {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=3"}
            )
        )
        s.model.answer("Done over the socket.")
        root = s.slack.add_message(CHANNEL, "<@U0BOT> scale dev to 3", user=ALICE)
        envelope = s.slack.socket_mode.push_event(
            _callback(
                app_mention(channel=CHANNEL, user=ALICE, text=root.text, ts=root.ts), "EvSock1"
            )
        )
        s.slack.socket_mode.wait_for_ack(envelope)
        proposal = s.proposal(root.ts)
        s.slack.add_reaction(CHANNEL, proposal.ts, "white_check_mark", user=BOB)
        s.slack.socket_mode.push_event(
            _callback(
                reaction_added(
                    channel=CHANNEL,
                    ts=proposal.ts,
                    reaction="white_check_mark",
                    user=BOB,
                    item_user=proposal.user,
                ),
                "EvSock2",
            )
        )
        s.wait_text(root.ts, "Opened pull request #1")
        assert bot.stop() == 0  # SIGTERM: a clean exit


def test_sigterm_lets_the_running_turn_finish(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        bot = s.start_bot()
        s.model.fake.script(
            Reply(events=stream_events(anthropic_message(text_block("Finished anyway."))), delay=2)
        )
        root = s.mention("a slow question")
        s.slack.wait_for(lambda: s.model.request_count() >= 1, timeout=30)
        bot.process.send_signal(signal.SIGTERM)
        s.wait_text(root.ts, "Finished anyway.")
        assert bot.process.wait(30) == 0
        _ = tool_use_block
