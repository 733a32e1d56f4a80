"""The work queue's workers: requests run oldest first, each once; a dead replica's taken work
is put back and run by a live one; a live replica's is left alone. Memory and a real Redis."""

from __future__ import annotations

import copy
import multiprocessing
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.domain.alerts import parse_notification
from bot.domain.commands import NewEnv
from bot.domain.pr_events import (
    CheckRunUpdate,
    CommentAdded,
    CommitStatus,
    PullRef,
    PullRequestClosed,
    PullRequestUpdated,
    ReviewSubmitted,
)  # fmt: skip
from bot.domain.requests import Mention, Reaction, SlashCommand, ThreadReply
from bot.runtime import work as items
from bot.runtime.admission import Admission
from bot.runtime.lease import dead_mark, owner_lock
from bot.runtime.work import BadWork, NewEnvRequest, Work
from bot.store import Store
from bot.store.memory import MemoryStore
from bot.store.redis import RedisStore
from tests.unit.alerts.test_payload import fixture


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    server = request.getfixturevalue("shared_redis")
    redis_store = RedisStore(server.url, prefix=f"admit-{uuid.uuid4().hex[:8]}:")
    yield redis_store
    redis_store.close()


def mention(i: int) -> Mention:
    return Mention("C0DEPLOY", "U0ALICE", f"request {i}", f"1700000000.{i:06d}", None)


class Ran:
    def __init__(self, expected: int) -> None:
        self.seen: list[Work] = []
        self.expected = expected
        self.done = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, work: Work) -> None:
        with self._lock:
            self.seen.append(work)
            if len(self.seen) >= self.expected:
                self.done.set()


def admission(store: Store, run: Ran, owner: str, workers: int = 1) -> Admission:
    return Admission(store, run, owner=owner, workers=workers, lease_ttl=1.0)


def test_a_request_taken_while_events_keep_coming_still_runs_once(store: Store) -> None:
    # Slack's events never pause (the stamp stays ahead): the worker holds the request back
    # HOLD_AT_MOST, then runs it, counted busy meanwhile; never dropped, never run twice.
    run = Ran(1)
    queue = admission(store, run, "r1")
    queue.heard.value = time.monotonic() + 3600
    queue.admit(mention(1))
    queue.start()
    try:
        assert run.done.wait(30)
    finally:
        queue.stop(5)
    assert run.seen == [mention(1)]
    assert queue.busy.value == 0


def test_requests_run_in_order_each_once(store: Store) -> None:
    run = Ran(20)
    queue = admission(store, run, "r1")
    for i in range(20):
        queue.admit(mention(i))
    queue.start()
    try:
        assert run.done.wait(30)
    finally:
        queue.stop(5)
    assert run.seen == [mention(i) for i in range(20)]
    assert store.return_work("r1") == 0  # nothing left taken


def test_a_dead_replicas_taken_work_is_run_by_a_live_one(store: Store) -> None:
    store.put_work(items.dump(mention(1)))
    store.put_work(items.dump(mention(2)))
    assert store.take_work("dead", 1.0) is not None  # taken, then the replica died
    run = Ran(2)
    live = admission(store, run, "live")
    live.start()
    try:
        assert run.done.wait(30)
    finally:
        live.stop(5)
    assert run.seen == [mention(1), mention(2)]  # put back at the head: order kept
    assert "dead" not in store.work_owners()


def test_a_dead_replica_is_declared_dead_before_its_work_is_queued_again(store: Store) -> None:
    store.put_work(items.dump(mention(1)))
    assert store.take_work("dead", 1.0) is not None
    admission(store, Ran(1), "live")._tend()
    assert store.get_blob(dead_mark("dead")) is not None  # its thread leases may be taken over
    assert store.get_blob(dead_mark("live")) is None


def test_a_live_replicas_taken_work_is_left_alone(store: Store) -> None:
    store.acquire(owner_lock("busy"), "busy", 60.0)  # its owner lease is renewed
    store.put_work(items.dump(mention(1)))
    assert store.take_work("busy", 1.0) is not None
    other = admission(store, Ran(1), "other")
    other._tend()  # what its keeper does every lease_ttl / 3
    assert "busy" in store.work_owners()
    assert store.take_work("other", 0.01) is None


def test_every_request_kind_survives_the_queue() -> None:
    kinds: list[Work] = [
        mention(1),
        Mention("C0DEPLOY", "U0ALICE", "in a thread", "1700000001.000001", "1700000000.000001"),
        Mention("C0DEPLOY", "U0ALICE", "About...", "1700000001.000002", None, "loki is down"),
        ThreadReply("C0DEPLOY", "U0BOB", "and prod", "1700000002.000001", "1700000000.000001"),
        Reaction(
            "C0DEPLOY",
            "U0BOB",
            "white_check_mark",
            "1700000003.000001",
            True,
            1700000004.5,
            "U0BOT",
        ),
    ]
    for request in kinds:
        assert items.load(items.dump(request)) == request
    assert items.dump(kinds[0]) != items.dump(kinds[0])  # two identical requests: two items


@pytest.mark.parametrize("raw", ["not json", "{}", '{"kind": "poll"}', '{"kind": "mention"}'])
def test_an_unreadable_item_is_a_clear_error(raw: str) -> None:
    with pytest.raises(BadWork, match="work"):
        items.load(raw)


def test_queued_is_judged_by_the_running_count_another_process_shares(store: Store) -> None:
    """The serving process admits; the work process runs. The count of running requests they
    share (a multiprocessing Value in `serve`) decides whether an asker hears "queued"."""
    shared = multiprocessing.get_context("spawn").Value("i", 0)
    serving = Admission(store, Ran(1), owner="serving", workers=2, lease_ttl=1.0, busy=shared)
    assert serving.admit(mention(1)) is None  # two idle workers, one waiting request
    with shared.get_lock():
        shared.value = 2  # the work process is running two requests
    waiting = serving.admit(mention(2))
    assert waiting is not None
    assert store.work_waiting(waiting)


def test_only_a_request_still_waiting_later_is_told_it_is_queued(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wait shorter than QUEUED_NOTICE_AFTER needs no "queued" message (and a burst's notices
    are not posted while the burst is acknowledged); one still on the queue then gets it."""
    monkeypatch.setattr("bot.runtime.admission.QUEUED_NOTICE_AFTER", 0.3)
    shared = multiprocessing.get_context("spawn").Value("i", 1)  # the one worker is busy
    serving = Admission(store, Ran(1), owner="serving", workers=1, lease_ttl=1.0, busy=shared)
    told: list[int] = []
    taken_soon, left = serving.admit(mention(1)), serving.admit(mention(2))
    assert taken_soon is not None
    assert left is not None
    serving.if_still_waiting(taken_soon, lambda: told.append(1))
    serving.if_still_waiting(left, lambda: told.append(2))
    assert store.take_work("worker", 1.0) == taken_soon  # a worker took the first at once
    deadline = time.monotonic() + 10
    while not told and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # and nothing more comes
    assert told == [2]
    serving.stop(1.0)


def test_new_env_alerts_and_github_news_travel_the_queue_unchanged() -> None:
    """What the serving process acknowledged reaches the work process (or another replica) as
    the same value."""
    new_env = NewEnvRequest(SlashCommand("C0DEPLOY", "U0ALICE", "/tanka", "new-env staging x"),
                            NewEnv("staging", "copy dev; 2 replicas"))  # fmt: skip
    payload = copy.deepcopy(fixture())
    payload["alerts"][0]["annotations"]["summary"] = 'quotes " and newlines\n'
    alert = parse_notification(payload)
    pr = PullRef("acme/infra", 7)
    news: list[Work] = [
        CheckRunUpdate(pr, "abc123", 9, "build", "completed", "failure", "https://ci/9", "red"),
        ReviewSubmitted(pr, "bob", "changes_requested", "not like this", "https://gh/r/1"),
        CommentAdded(pr, "carol", "why?", "https://gh/c/2", path="env/main.jsonnet", line=4),
        CommentAdded(pr, "carol", "why?", "https://gh/c/3"),
        PullRequestClosed(pr, merged=True, by="bob", url="https://gh/pr/7"),
        PullRequestUpdated(pr, head_sha="def456", conflicts=True),
        CommitStatus(
            "acme/infra",
            "abc123",
            3,
            "ci/lint",
            "failure",
            "lint failed",
            "https://ci/3",
            ("tanka-bot/x", "main"),
        ),
    ]
    for request in [new_env, alert, *news]:
        assert items.load(items.dump(request)) == request


def test_an_unknown_github_event_in_the_queue_is_a_clear_error() -> None:
    raw = '{"kind": "github", "type": "Deployment", "event": {}, "nonce": "n"}'
    with pytest.raises(BadWork, match="unknown GitHub event 'Deployment'"):
        items.load(raw)
