"""The approval gate (bot.guards.gate) over a real guard store, in memory and in Redis, with
freezegun moving the clock: a recurring freeze starting and ending while a proposal waits, a
waiver expiring, an override for one proposal only, holds of other threads."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from freezegun import freeze_time

from bot.guards.config import FreezeWindow, GuardSettings
from bot.guards.gate import Asked, refusal
from bot.store.guard_store import Grant, GuardStore, HoldRecord, MemoryGuardStore, build_guard_store
from bot.store.redis import RedisStore
from tests.redis_server import RedisServer

WEEKEND = FreezeWindow(
    ("environments/prod*",), "weekend freeze", cron="0 18 * * FRI", duration=62 * 3600.0
)
SETTINGS = GuardSettings(freezes=(WEEKEND,), policy_owners={"main.deny_tag": ("S0PLATFORM",)})
THREAD = "C0DEPLOY:1700000000.000100"
PROD = Asked(THREAD, "1700000001.000200", ("environments/prod",), ())


def now() -> float:
    return time.time()  # read at each call, so freezegun's clock is the one used


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[GuardStore]:
    if request.param == "memory":
        yield MemoryGuardStore(clock=now)
        return
    server: RedisServer = request.getfixturevalue("shared_redis")
    prefix = f"test-{uuid.uuid4().hex[:8]}:"
    base = RedisStore(server.url, prefix=prefix)
    yield build_guard_store(base, prefix=prefix, clock=now)
    base.close()


def ask(store: GuardStore, asked: Asked = PROD) -> str | None:
    found = refusal(asked, SETTINGS, ("U0OPS",), store, time.time())
    return None if found is None else found.guard


def test_a_weekend_freeze_starts_and_ends_while_a_proposal_waits(store: GuardStore) -> None:
    with freeze_time("2026-11-27 17:59:59", tz_offset=0) as clock:  # a Friday, UTC
        assert ask(store) is None
        clock.tick(1)  # 18:00: the window opens
        found = refusal(PROD, SETTINGS, ("U0OPS",), store, time.time())
        assert found is not None
        assert found.guard == "freeze"
        assert "until 2026-11-30 08:00 UTC (weekend freeze)" in found.text
        assert "an admin (<@U0OPS>) replies `override REASON`" in found.text
        assert ask(store, Asked(THREAD, "1.0", ("environments/dev",), ())) is None
        clock.move_to("2026-11-30 07:59:59")
        assert ask(store) == "freeze"
        clock.tick(1)  # Monday 08:00: over
        assert ask(store) is None


def test_an_override_lets_that_proposal_pass_and_no_other(store: GuardStore) -> None:
    with freeze_time("2026-11-28 12:00:00"):
        store.add_grant(
            THREAD,
            Grant("override", PROD.proposal_ts, "hotfix", "U0OPS", time.time(), time.time() + 3600),
        )
        assert ask(store) is None
        assert ask(store, Asked(THREAD, "1700000009.000900", PROD.envs, ())) == "freeze"


def test_unknown_environments_are_frozen_by_any_freeze(store: GuardStore) -> None:
    with freeze_time("2026-11-28 12:00:00"):
        assert ask(store, Asked(THREAD, "1.0", None, ())) == "freeze"


def test_a_waiver_lifts_its_rule_until_it_expires(store: GuardStore) -> None:
    denied = Asked(THREAD, "1.0", ("environments/dev",), ("main.deny_tag",))
    with freeze_time("2026-12-01 09:00:00") as clock:
        found = refusal(denied, SETTINGS, (), store, time.time())
        assert found is not None
        assert found.guard == "waiver"
        assert "<!subteam^S0PLATFORM> may reply `waive main.deny_tag REASON [for 7d]`" in found.text
        store.add_grant(
            THREAD,
            Grant(
                "waiver",
                "main.deny_tag",
                "pinned next week",
                "U0P",
                time.time(),
                time.time() + 86_400,
            ),
        )
        assert ask(store, denied) is None
        clock.tick(86_399)
        assert ask(store, denied) is None
        clock.tick(1)  # the waiver expired: the rule blocks again
        assert ask(store, denied) == "waiver"


def test_a_rule_without_owners_cannot_be_waived(store: GuardStore) -> None:
    denied = Asked(THREAD, "1.0", ("environments/dev",), ("main.deny",))
    found = refusal(denied, SETTINGS, (), store, time.time())
    assert found is not None
    assert "nobody may waive it" in found.text


def test_another_threads_pull_request_holds_the_environment(store: GuardStore) -> None:
    store.claim(
        HoldRecord(
            "environments/prod", "acme/infra", 7, "https://gh/pr/7", "C0DEPLOY:1.0", time.time()
        )
    )
    with freeze_time("2026-12-01 09:00:00"):
        found = refusal(PROD, SETTINGS, (), store, time.time())
        assert found is not None
        assert found.guard == "hold"
        assert "`environments/prod` is in pull request <https://gh/pr/7|#7>" in found.text
        own = Asked("C0DEPLOY:1.0", "2.0", ("environments/prod",), ())
        assert ask(store, own) is None  # its own pull request holds nothing against it
