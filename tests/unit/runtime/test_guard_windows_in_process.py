"""A recurring freeze of the settings file opening and closing while a proposal waits, through
the runner and its handlers in process (tests/unit/runtime/harness.py) with freezegun moving
the clock, over a memory store and a real Redis: the proposal made before the window is refused
while it is open (saying until when and why) and opens a pull request once it has closed."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
import yaml
from freezegun import freeze_time

from bot.store.base import Store
from bot.store.guard_store import build_guard_store
from bot.store.memory import MemoryStore
from bot.store.redis import RedisStore
from tests.redis_server import RedisServer
from tests.unit.runtime.harness import ALICE, BOB, rig, scale_dev

PREFIX = f"guard-{uuid.uuid4().hex[:8]}:"


def now() -> float:
    return time.time()  # read at each call: freezegun's clock


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Store:
    if request.param == "memory":
        return MemoryStore()
    server: RedisServer = request.getfixturevalue("shared_redis")
    return RedisStore(server.url, prefix=PREFIX)


def test_a_weekend_freeze_opens_and_closes_while_a_proposal_waits(
    tmp_path: Path, store: Store
) -> None:
    config = tmp_path / "guards.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "allowed_users": [ALICE, BOB],
                "admins": ["U0OPS"],
                "freezes": [
                    {
                        "envs": ["environments/dev*"],
                        "cron": "0 18 * * FRI",
                        "duration": "62h",
                        "reason": "weekend freeze",
                    }
                ],
            }
        )
    )
    # A Friday afternoon (UTC); the clock runs on from there, and jumps where the test says.
    with (
        freeze_time("2026-11-27 16:00:00", tick=True) as clock,
        rig(tmp_path, store, env={"TANKA_BOT_CONFIG": str(config)}) as bot,
    ):
        bot.svc.clock = now
        bot.svc.guards = build_guard_store(store, prefix=PREFIX, clock=now)
        scale_dev(bot.model)
        key = bot.mention("scale grafana in dev to 3")
        bot.settle()
        ts = bot.proposal_ts(key)
        assert not bot.said(key, "Frozen")

        clock.move_to("2026-11-27 18:00:05")  # the window opens while the proposal waits
        bot.react(ts, user=BOB)
        bot.settle()
        assert bot.said(
            key, "`environments/dev` is frozen until 2026-11-30 08:00 UTC (weekend freeze)"
        )
        assert bot.github.repos["acme/infra"].pulls == {}

        clock.move_to("2026-11-30 08:00:05")  # Monday morning: it has closed
        bot.react(ts, user=BOB)
        bot.settle()
        assert bot.said(key, "Opened pull request #1")
