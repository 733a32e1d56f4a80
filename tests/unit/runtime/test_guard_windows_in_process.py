"""Guardrails that time ends, through the runner and its handlers in process
(tests/unit/runtime/harness.py) with freezegun moving the clock, over a memory store and a real
Redis: a recurring freeze of the settings file opening and closing while a proposal waits (the
proposal is refused while it is open, saying until when and why, and opens a pull request once
it has closed), and a policy waiver expiring before the approval."""

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
from tests.scenarios.project import git
from tests.unit.runtime.harness import ALICE, BOB, rig, scale_dev


def now() -> float:
    return time.time()  # read at each call: freezegun's clock


@pytest.fixture
def prefix() -> str:
    return f"guard-{uuid.uuid4().hex[:8]}:"  # each test's own keys in the shared Redis


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest, prefix: str) -> Store:
    if request.param == "memory":
        return MemoryStore()
    server: RedisServer = request.getfixturevalue("shared_redis")
    return RedisStore(server.url, prefix=prefix)


def test_a_weekend_freeze_opens_and_closes_while_a_proposal_waits(
    tmp_path: Path, store: Store, prefix: str
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
        bot.svc.guards = build_guard_store(store, prefix=prefix, clock=now)
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


CAPACITY = """\
package main

import rego.v1

deny_capacity contains msg if {
  input.kind == "Deployment"
  input.spec.replicas > 5
  msg := sprintf("%s: more than 5 replicas needs a capacity review", [input.metadata.name])
}
"""
PLATFORM = "U0PLAT"


def test_a_waiver_expires_while_the_proposal_waits(
    tmp_path: Path, store: Store, prefix: str
) -> None:
    config = tmp_path / "guards.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "allowed_users": [ALICE, BOB, PLATFORM],
                "policy_owners": {"main.deny_capacity": [PLATFORM]},
            }
        )
    )
    with (
        freeze_time("2026-12-01 09:00:00", tick=True) as clock,
        rig(tmp_path, store, env={"TANKA_BOT_CONFIG": str(config)}) as bot,
    ):
        bot.svc.clock = now
        bot.svc.guards = build_guard_store(store, prefix=prefix, clock=now)
        _add_policy(tmp_path, bot.origin)
        bot.svc.workspaces.cache.fetch()
        scale_dev(bot.model, replicas=9)
        key = bot.mention("scale grafana in dev to 9")
        bot.settle()
        ts = bot.proposal_ts(key)
        assert bot.said(key, "Policy `main.deny_capacity` denies this change")

        bot.reply(key, "waive main.deny_capacity load test today for 1h", user=PLATFORM)
        bot.settle()
        assert bot.said(key, "waived `main.deny_capacity` for this thread until 2026-12-01 10:00")
        clock.move_to("2026-12-01 10:00:05")  # an hour later: the waiver has expired
        bot.react(ts, user=BOB)
        bot.settle()
        assert bot.said(key, "not opened: policy `main.deny_capacity` denies this change")
        assert bot.github.repos["acme/infra"].pulls == {}

        bot.reply(key, "waive main.deny_capacity load test extended for 1d", user=PLATFORM)
        bot.settle()
        bot.react(ts, user=BOB)
        bot.settle()
        assert bot.said(key, "Opened pull request #1")
        body = bot.github.repos["acme/infra"].pulls[1].body
        assert "waived by Slack user U0PLAT until 2026-12-02 10:00 UTC: load test extended" in body
        assert "load test today" not in body  # the expired waiver is not listed


def _add_policy(tmp: Path, origin: Path) -> None:
    work = tmp / "policy-work"
    git(tmp, "clone", "--quiet", str(origin), str(work))
    (work / "policy").mkdir()
    (work / "policy" / "capacity.rego").write_text(CAPACITY)
    git(work, "add", "--all", ".")
    git(work, "commit", "--quiet", "-m", "a capacity policy")
    git(work, "push", "--quiet", "origin", "HEAD:main")
