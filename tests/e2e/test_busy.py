"""A busy workspace, over real HTTP into `tanka-bot serve`: chatter that is not for the bot costs
nothing, a burst of mentions is answered once each, Redis outages are said in the thread, and a
replica's acknowledged work outlives it."""

from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import redis

from fakes.anthropic_server import anthropic_message, stream_events, text_block
from fakes.http_server import Reply
from fakes.slack_events import app_mention, message, reaction_added
from fakes.slack_server import SlackMessage
from tests.e2e.harness import ALICE, BOB, CHANNEL, Stack, stack
from tests.scenarios.models import Call

DEV = "environments/dev/main.jsonnet"
PEER = "U0PEER"
STORE_DOWN = "can't take work right now"


def chatter(s: Stack, count: int) -> list[SlackMessage]:
    """People talking in their own threads and reacting to each other: never the bot's."""
    roots = [s.slack.add_message(CHANNEL, f"standup {i}", user=PEER) for i in range(5)]
    for i in range(count):
        root = roots[i % len(roots)]
        reply = s.slack.add_message(CHANNEL, f"sounds good {i}", user=ALICE, thread_ts=root.ts)
        s.sender.send(message(channel=CHANNEL, user=ALICE, text=reply.text, ts=reply.ts,
                              thread_ts=root.ts))  # fmt: skip
        # the approve and cancel emoji on people's messages: not approvals, not cancels
        emoji = ("white_check_mark", "x", "tada")[i % 3]
        s.sender.send(reaction_added(user=BOB, reaction=emoji, channel=CHANNEL, ts=reply.ts,
                                     item_user=ALICE))  # fmt: skip
    return roots


def metric(s: Stack, line_start: str) -> float:
    assert s.bot is not None
    status, text = s.bot.get("/metrics")
    assert status == 200
    for line in text.splitlines():
        if line.startswith(line_start):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_chatter_in_a_busy_channel_makes_no_post_and_no_web_api_call(tmp_path: Path) -> None:
    with stack(tmp_path) as s:
        s.start_bot()
        before = len(s.slack.calls())
        chatter(s, 30)
        # A mention the parser cannot accept (a user id Slack never sends) is logged, not lost
        # in silence.
        s.sender.send(app_mention(channel=CHANNEL, user="not-a-user", text="<@U0BOT> hi",
                                  ts="1700000000.000900"))  # fmt: skip
        time.sleep(1.0)  # anything the chatter set off would have happened by now
        # Bolt's one auth.test at its first request (it caches the answer) is all there is
        assert [c.method for c in s.slack.calls()[before:] if c.method != "auth.test"] == []
        dropped = 'tanka_bot_events_dropped_total{reason="%s"}'
        assert metric(s, dropped % "reply_without_session") == 30
        assert metric(s, dropped % "reaction_not_on_bot_message") == 20
        assert metric(s, dropped % "reaction_other_emoji") == 10
        assert s.bot is not None
        assert (
            '"level": "info", "logger": "bot.inbound.slack_listeners", "message": '
            '"mention ignored: message without a valid channel, user or ts"' in s.bot.log()
        )

        s.model.answer("Hello from the bot.")
        root = s.mention("hello")
        s.wait_text(root.ts, "Hello from the bot.")
        threads = {str(c.args.get("thread_ts")) for c in s.slack.calls("chat.postMessage")}
        assert threads == {root.ts}


def test_a_burst_of_fifty_mentions_amid_chatter_is_answered_once_each(tmp_path: Path) -> None:
    with stack(tmp_path, redis=True) as s:
        s.start_bot()
        for _ in range(50):
            s.model.answer("Answered.")
        sender = s.sender
        roots = [s.slack.add_message(CHANNEL, f"<@U0BOT> request {i}", user=ALICE)
                 for i in range(50)]  # fmt: skip

        def send(i: int) -> None:
            root = roots[i]
            event = app_mention(channel=CHANNEL, user=ALICE, text=root.text, ts=root.ts)
            assert sender.send(event).response.status == 200
            # Slack also sends the mention as a `message`: one request, answered once
            twin = message(channel=CHANNEL, user=ALICE, text=root.text, ts=root.ts)
            assert sender.send(twin).response.status == 200

        with ThreadPoolExecutor(25) as pool:
            chatter_done = pool.submit(chatter, s, 60)
            list(pool.map(send, range(50)))
            chatter_done.result()

        def answered() -> bool:
            return all(
                any("Answered." in m.text for m in s.slack.bot_messages(CHANNEL, r.ts))
                for r in roots
            )

        s.slack.wait_for(answered, timeout=240)
        time.sleep(1.0)  # a second answer, if any, would come now
        for root in roots:
            texts = [m.text for m in s.slack.bot_messages(CHANNEL, root.ts)]
            assert sum("Answered." in t for t in texts) == 1, texts
        assert s.model.request_count() == 50
        mentioned = {r.ts for r in roots}
        stray = [c for c in s.slack.calls("chat.postMessage")
                 if c.args.get("thread_ts") not in mentioned]  # fmt: skip
        assert stray == []
        assert s.slack.calls("conversations.replies") == []


def test_redis_down_around_an_approval_a_reply_and_a_cancel(tmp_path: Path) -> None:
    with stack(tmp_path, redis=True, redis_keeps_data=True) as s:
        bot = s.start_bot()
        assert s.redis is not None
        edit = {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=3"}
        s.model.calls(Call("c1", "file_edit", edit))
        s.model.answer("Proposed.")
        root = s.mention("scale dev to 3")
        proposal = s.proposal(root.ts)
        # The turn saves the session (the proposal's ts included) after posting it: stopping
        # Redis before its lease is released would test a lost save, not an outage.
        client = redis.Redis.from_url(s.redis.url)
        s.slack.wait_for(lambda: not client.keys(f"*lock:thread:{CHANNEL}:{root.ts}"), timeout=20)
        client.close()

        s.redis.stop()
        assert bot.get("/readyz")[0] == 503

        def told(count: int) -> None:
            s.slack.wait_for(
                lambda: sum(STORE_DOWN in t for t in s.bot_texts(root.ts)) >= count, timeout=20
            )

        s.react(proposal.ts, "white_check_mark", user=BOB)  # the approval
        told(1)
        s.reply(root.ts, "and prod too, please")  # a reply in the session
        told(2)
        s.reply(root.ts, "cancel")  # a cancel
        told(3)
        s.sender.command("status", channel_id=CHANNEL, user_id=ALICE)  # `/tanka status`
        s.slack.wait_for(
            lambda: any("unavailable" in e.text for e in s.slack.ephemerals), timeout=20
        )
        assert s.github.repos["acme/infra"].pulls == {}

        s.redis.start()
        s.slack.wait_for(lambda: bot.get("/readyz")[0] == 200, timeout=20)
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1")
        s.model.answer("Prod is next.")
        s.reply(root.ts, "and prod too, please")
        s.wait_text(root.ts, "Prod is next.")
        assert sum(STORE_DOWN in t for t in s.bot_texts(root.ts)) == 3
        assert list(s.github.repos["acme/infra"].pulls) == [1]


def test_a_killed_replica_leaves_its_acknowledged_work_to_another(tmp_path: Path) -> None:
    with stack(tmp_path, redis=True) as s:
        first = s.start_bot({"TANKA_BOT_WORKERS": "1"})
        never = anthropic_message(text_block("…"))
        s.model.fake.script(Reply(events=stream_events(never), delay=120))  # hangs until the kill
        busy = s.mention("think hard")
        s.slack.wait_for(lambda: s.model.request_count() >= 1, timeout=30)
        waiting = s.mention("scale dev")  # acknowledged; its one worker is busy
        first.stop(signal.SIGKILL)

        s.model.answer("Done.")
        s.model.answer("Done.")
        time.sleep(3.5)  # the dead replica's leases (TANKA_BOT_LEASE_TTL=3) run out
        s.start_bot({"TANKA_BOT_WORKDIR": str(tmp_path / "replica-2")})
        s.wait_text(waiting.ts, "Done.", timeout=60)
        s.wait_text(busy.ts, "Done.", timeout=60)
        time.sleep(1.0)
        assert sum("Done." in t for t in s.bot_texts(waiting.ts)) == 1
        assert s.model.request_count() == 3  # the hung call, then each request once


def test_slack_429s_and_500s_and_github_502s_are_retried_then_said_with_one_pull_request(
    tmp_path: Path,
) -> None:
    with stack(tmp_path, redis=True) as s:
        s.start_bot()
        edit = {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=3"}
        s.model.calls(Call("c1", "file_edit", edit))
        s.model.answer("Proposed.")
        s.slack.rate_limit("chat.postMessage", retry_after=1, times=2)
        s.slack.fail("chat.postMessage", status=500, times=1)
        root = s.mention("scale dev to 3")
        proposal = s.proposal(root.ts)  # posted through Slack's 429s and 500

        # GitHub answers 502 to every try of the first approval: the thread is told, and the
        # next approval opens the pull request, once.
        s.github.fail(502, "Bad Gateway", method="POST", path=r"/pulls$", times=4)
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "approve again to retry", timeout=60)
        assert s.github.repos["acme/infra"].pulls == {}
        s.github.fail(502, "Bad Gateway", method="POST", path=r"/pulls$", times=1)
        s.react(proposal.ts, "white_check_mark", user=BOB)
        s.wait_text(root.ts, "Opened pull request #1", timeout=60)
        assert list(s.github.repos["acme/infra"].pulls) == [1]
