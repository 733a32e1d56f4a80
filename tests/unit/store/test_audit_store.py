"""The audit log's stores: JSON-lines segments (retention by age and count) and the Redis stream,
read back oldest first with the `since` and `thread` filters."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

from bot.telemetry.audit_log import AuditStore, JsonLinesAudit, iso_time
from bot.telemetry.audit_redis import RedisAudit
from tests.redis_server import RedisServer
from tests.unit.store.conftest import FakeClock

DAY = 86_400.0


def event(when: float, thread: str, name: str = "message") -> str:
    return json.dumps({"time": iso_time(when), "channel": "C0DEPLOY", "thread": thread,
                       "user": "U0ALICE", "event": name, "details": {}})  # fmt: skip


@pytest.fixture(params=["files", "redis"])
def audit_store(request: pytest.FixtureRequest, tmp_path: Path) -> AuditStore:
    if request.param == "files":
        return JsonLinesAudit(tmp_path / "audit", retention=30 * DAY, max_events=1000)
    server: RedisServer = request.getfixturevalue("shared_redis")
    prefix = f"test-{uuid.uuid4().hex[:8]}:"
    return RedisAudit(server.url, prefix=prefix, retention=30 * DAY, max_events=1000)


def test_events_come_back_in_order_and_filtered(audit_store: AuditStore) -> None:
    now = time.time()
    audit_store.append([event(now - 60, "1.1", "session_started"), event(now - 30, "2.2")])
    audit_store.append([event(now, "1.1", "proposal")])
    assert [e["event"] for e in audit_store.read()] == ["session_started", "message", "proposal"]
    assert [e["event"] for e in audit_store.read(thread="1.1")] == ["session_started", "proposal"]
    assert [e["thread"] for e in audit_store.read(since=now - 45)] == ["2.2", "1.1"]
    assert list(audit_store.read(since=now + 60)) == []
    audit_store.close()


def test_file_segments_are_pruned_by_age_and_by_count(tmp_path: Path) -> None:
    clock = FakeClock(1_700_000_000.0)
    store = JsonLinesAudit(tmp_path, retention=10 * DAY, max_events=100, clock=clock)
    # 10 events per segment (max_events / 10); 10 closed segments kept at most.
    for i in range(150):
        store.append([event(clock(), f"{i}.0")])
        clock.advance(60)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 11  # ten closed segments and the current one
    kept = [e["thread"] for e in store.read()]
    assert kept == [f"{i}.0" for i in range(40, 150)]
    # Ten days later every closed segment is older than the cutoff and goes.
    clock.advance(11 * DAY)
    store.append([event(clock(), "late")])
    assert [e["thread"] for e in store.read()] == ["late"]


def test_a_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    store = JsonLinesAudit(tmp_path, retention=DAY, max_events=1000)
    store.append([event(1_700_000_000.0, "1.1")])
    (segment,) = tmp_path.iterdir()
    with segment.open("a") as f:
        f.write('{"time": "2023-11-14T22:13:20')
    store2 = JsonLinesAudit(tmp_path, retention=DAY, max_events=1000)
    assert [e["thread"] for e in store2.read()] == ["1.1"]
