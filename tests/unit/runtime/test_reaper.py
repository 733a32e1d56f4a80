"""bot.runtime.reaper: idle sessions reaped once, cut-off turns reported once, live turns left
alone."""

from __future__ import annotations

import threading

import pytest

from bot.config import load_settings
from bot.domain.sessions import Session
from bot.domain.thread import ThreadKey
from bot.runtime.lease import lock_name
from bot.runtime.reaper import CUT_OFF, Reaper
from bot.services import Services
from bot.store.base import StoreUnavailable
from bot.store.memory import MemoryStore
from bot.telemetry.metrics import Metrics
from fakes.chat import RecordingChat
from tests.unit.services import bare_services

TTL = 3600.0
NOW = 1_700_100_000.0
KEY = ThreadKey("C0DEPLOY1", "1700000000.000100")
KEY2 = ThreadKey("C0DEPLOY1", "1700000000.000200")


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


class FakeWorkspaces:
    def __init__(self) -> None:
        self.discarded: list[ThreadKey] = []

    def discard(self, session: Session) -> None:
        self.discarded.append(session.key)


class Env:
    def __init__(self) -> None:
        self.clock = Clock()
        self.store = MemoryStore(clock=self.clock)
        self.chat = RecordingChat()
        self.workspaces = FakeWorkspaces()
        self.metrics = Metrics()

    def services(self, replica: str) -> Services:
        return bare_services(
            load_settings({"TANKA_BOT_SESSION_TTL": str(TTL)}),
            store=self.store,
            chat=self.chat,
            workspaces=self.workspaces,
            metrics=self.metrics,
            replica=replica,
            clock=self.clock,
        )

    def reaper(self, replica: str = "r1") -> Reaper:
        return Reaper(self.services(replica))

    def save(self, key: ThreadKey, *, idle_for: float, state: str = "idle") -> Session:
        updated = NOW - idle_for
        session = Session(
            channel=key.channel,
            thread_ts=key.thread_ts,
            requester="U0REQUEST",
            request="scale prod",
            created=updated,
            updated=updated,
            base_branch="main",
            state=state,
        )
        self.store.save(key, session.to_json(), updated=updated)
        return session

    def stored(self, key: ThreadKey) -> Session | None:
        raw = self.store.load(key)
        return None if raw is None else Session.from_json(raw)


@pytest.fixture
def env() -> Env:
    return Env()


def test_idle_session_past_the_ttl_is_reaped_once_with_a_notice(env: Env) -> None:
    env.save(KEY, idle_for=TTL + 1)
    env.save(KEY2, idle_for=TTL - 1)
    assert env.reaper().sweep() == (1, 0)
    assert env.stored(KEY) is None
    assert env.stored(KEY2) is not None
    assert env.workspaces.discarded == [KEY]
    assert len(env.chat.posts) == 1
    channel, text, thread_ts = env.chat.posts[0]
    assert (channel, thread_ts) == (KEY.channel, KEY.thread_ts)
    assert "idle for 1 h" in text
    assert env.store.holder(lock_name(KEY)) is None  # the reaper's lease is released
    assert env.reaper("r2").sweep() == (0, 0)
    assert len(env.chat.posts) == 1
    assert env.workspaces.discarded == [KEY]


def test_the_notice_names_the_configured_ttl_in_hours(env: Env) -> None:
    services = env.services("r1")
    services.settings = load_settings({"TANKA_BOT_SESSION_TTL": "86400"})
    env.save(KEY, idle_for=86_401)
    assert Reaper(services).sweep() == (1, 0)
    assert "idle for 24 h" in env.chat.posts[0][1]


def test_a_session_within_the_ttl_is_kept(env: Env) -> None:
    env.save(KEY, idle_for=TTL - 1)
    assert env.reaper().sweep() == (0, 0)
    assert env.chat.posts == []
    assert env.workspaces.discarded == []


def test_an_idle_session_with_a_live_lease_is_not_reaped(env: Env) -> None:
    env.save(KEY, idle_for=TTL + 100)
    assert env.store.acquire(lock_name(KEY), "r9:turn", 60.0)  # a turn just started there
    assert env.reaper().sweep() == (0, 0)
    assert env.stored(KEY) is not None
    assert env.chat.posts == []
    assert env.workspaces.discarded == []
    assert env.store.holder(lock_name(KEY)) == "r9:turn"


def test_a_running_session_without_a_lease_gets_one_cut_off_notice(env: Env) -> None:
    saved = env.save(KEY, idle_for=60, state="running")
    assert env.reaper("r1").sweep() == (0, 1)
    assert env.reaper("r2").sweep() == (0, 0)
    assert env.chat.posts == [(KEY.channel, CUT_OFF, KEY.thread_ts)]
    after = env.stored(KEY)
    assert after is not None
    assert after.state == "idle"
    assert env.store.sessions() == [(KEY, saved.updated)]  # reporting is not activity
    assert env.workspaces.discarded == []


def _sweep_after(
    reaper: Reaper, barrier: threading.Barrier, results: list[tuple[int, int]]
) -> None:
    barrier.wait()
    results.append(reaper.sweep())


def test_two_reapers_sweeping_at_once_report_a_cut_off_turn_once(env: Env) -> None:
    for _ in range(20):  # several rounds to give the race a chance
        env.chat.clear()
        env.save(KEY, idle_for=60, state="running")
        reapers = [env.reaper("r1"), env.reaper("r2")]
        barrier = threading.Barrier(len(reapers))
        results: list[tuple[int, int]] = []
        threads = [
            threading.Thread(target=_sweep_after, args=(r, barrier, results)) for r in reapers
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert sorted(results) == [(0, 0), (0, 1)]
        assert env.chat.posts == [(KEY.channel, CUT_OFF, KEY.thread_ts)]


def test_a_running_session_with_a_live_lease_is_left_alone(env: Env) -> None:
    env.save(KEY, idle_for=60, state="running")
    assert env.store.acquire(lock_name(KEY), "r9:turn", 60.0)
    assert env.reaper().sweep() == (0, 0)
    assert env.chat.posts == []
    after = env.stored(KEY)
    assert after is not None
    assert after.state == "running"
    assert env.store.holder(lock_name(KEY)) == "r9:turn"


def test_a_corrupt_session_does_not_stop_the_sweep(
    env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    env.store.save(KEY, "{broken", updated=NOW - TTL - 10)
    env.save(KEY2, idle_for=TTL + 10)
    assert env.reaper().sweep() == (1, 0)
    assert env.workspaces.discarded == [KEY2]
    assert any(KEY.id in r.getMessage() for r in caplog.records)
    assert env.store.holder(lock_name(KEY)) is None


def test_a_failing_post_is_logged_not_raised(env: Env) -> None:
    env.save(KEY, idle_for=60, state="running")
    env.chat.fail = True
    assert env.reaper().sweep() == (0, 0)
    assert env.store.holder(lock_name(KEY)) is None


def test_store_outage_skips_the_sweep(env: Env) -> None:
    class Down(MemoryStore):
        def sessions(self, channel: str | None = None) -> list[tuple[ThreadKey, float]]:
            raise StoreUnavailable("redis at localhost:6379: connection refused")

    services = env.services("r1")
    services.store = Down()
    assert Reaper(services).sweep() == (0, 0)


def test_sweep_reports_the_active_sessions_gauge(env: Env) -> None:
    env.save(KEY, idle_for=1)
    env.save(KEY2, idle_for=2)
    env.reaper().sweep()
    assert b"tanka_bot_sessions_active 2.0" in env.metrics.render()


def test_queued_messages_nobody_reads_are_handed_to_wake(env: Env) -> None:
    woken: list[ThreadKey] = []
    env.save(KEY, idle_for=10)
    env.save(KEY2, idle_for=10)
    env.store.push_pending(KEY, '{"user": "U0A", "text": "and prod too"}')
    env.store.push_pending(KEY2, '{"user": "U0A", "text": "a turn is reading this"}')
    assert env.store.acquire(lock_name(KEY2), "r9:turn", 60.0)
    Reaper(env.services("r1"), wake=woken.append).sweep()
    assert woken == [KEY]  # KEY2's running turn reads its own queue
    assert env.store.has_pending(KEY)  # wake takes them, not the sweep


def test_a_reaped_sessions_waiting_proposal_and_a_cut_off_status_lose_their_buttons(
    env: Env,
) -> None:
    from bot.domain.proposal import Proposal  # noqa: PLC0415 - only this test needs it
    from bot.handlers import proposal_message  # noqa: PLC0415

    session = env.save(KEY, idle_for=TTL + 1)
    session.proposals = [Proposal(ts="1700000000.000500", base_commit="a", tree="b",
                                        diff_hash="c", files=("x",))]  # fmt: skip
    env.store.save(KEY, session.to_json(), updated=session.updated)
    section: dict[str, object] = {
        "type": "section",
        "text": {"type": "mrkdwn", "text": "*Proposal 1* diff"},
    }
    shown: list[dict[str, object]] = [section, {"type": "actions", "elements": []}]
    proposal_message.remember(env.services("r1"), session, "1700000000.000500", shown)
    running = env.save(KEY2, idle_for=60, state="running")
    running.status_ts = "1700000000.000600"
    env.store.save(KEY2, running.to_json(), updated=running.updated)

    assert env.reaper().sweep() == (1, 1)
    updates = {a["ts"]: a for m, a in env.chat.calls if m == "update"}
    closed = updates["1700000000.000500"]
    assert [b["type"] for b in closed["blocks"]] == ["section", "context"]  # no buttons
    assert "*Proposal 1* diff" in str(closed["blocks"])
    assert "closed" in closed["text"]
    assert updates["1700000000.000600"]["blocks"] is None  # the status's Cancel is gone


def test_a_proposals_blocks_are_kept_masked_as_slack_got_them(env: Env) -> None:
    from dataclasses import replace  # noqa: PLC0415

    from bot.handlers import proposal_message  # noqa: PLC0415
    from bot.slack.masking import MaskingChat  # noqa: PLC0415

    session = env.save(KEY, idle_for=0)
    svc = env.services("r1")
    masked = replace(svc, chat=MaskingChat(svc.chat, lambda t: t.replace("hunter2", "****")))
    block: dict[str, object] = {"type": "section", "text": {"type": "mrkdwn", "text": "pw hunter2"}}
    proposal_message.remember(masked, session, "1700000000.000500", [block])
    kept = env.store.get_blob(f"proposal-blocks:{KEY.id}:1700000000.000500")
    assert kept is not None
    assert b"hunter2" not in kept
    assert b"pw ****" in kept


def test_a_resolved_proposal_that_filled_slacks_limit_still_fits(env: Env) -> None:
    from bot.domain.proposal import Proposal  # noqa: PLC0415
    from bot.handlers import proposal_message  # noqa: PLC0415
    from bot.slack import blocks, interactive  # noqa: PLC0415

    session = env.save(KEY, idle_for=0)
    record = Proposal(ts="1700000000.000500", base_commit="a", tree="b", diff_hash="c",
                            files=("x",))  # fmt: skip
    full = blocks.fit(blocks.Rendered("t", [blocks.section("*Proposal 1*")] + [
        blocks.section("d" * 2990) for _ in range(5)] + [blocks.section("React")]))  # fmt: skip
    shown = [*full.blocks, interactive.proposal_actions()]
    proposal_message.remember(env.services("r1"), session, record.ts, shown)
    line = proposal_message.approved_line(1, ["U0BOB"], 12, "https://github.com/a/b/pull/12")
    proposal_message.resolve(env.services("r1"), session, record, line)
    update = next(a for m, a in env.chat.calls if m == "update")
    assert blocks.block_chars(update["blocks"]) <= blocks.BLOCKS_TEXT_LIMIT
    assert update["blocks"][0]["text"]["text"] == "*Proposal 1*"
    assert update["blocks"][-1]["elements"][0]["text"] == line
