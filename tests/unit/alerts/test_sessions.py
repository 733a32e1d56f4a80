"""bot.runtime.alerts in process: one session per firing group while it is open, news noted
without a turn, a new session after the old one closed, the route as the requester."""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

from bot.config import load_settings
from bot.domain.alerts import AlertNotification, parse_notification
from bot.domain.thread import ThreadKey
from bot.runtime import alerts
from bot.runtime.dispatch import Dispatcher, Submitted
from bot.runtime.lease import Lease
from bot.runtime.pending import Pending
from bot.runtime.threads import Threads
from bot.store.base import Store
from bot.store.memory import MemoryStore
from bot.store.redis import RedisStore
from bot.telemetry.metrics import Metrics
from fakes.chat import RecordingChat
from tests.redis_server import RedisServer
from tests.unit.alerts.test_payload import fixture
from tests.unit.services import bare_services

CHANNEL = "C0DEPLOY"
ROUTE = {"match": {"alertname": "KubeContainerOOMKilled"}, "channel": CHANNEL,
         "instructions": "Propose a memory change if warranted.", "name": "oom"}  # fmt: skip


class Inline:
    """A dispatcher that runs each job at once, on the caller's thread."""

    def submit(self, job: Callable[[], None]) -> Submitted:
        job()
        return Submitted.STARTED


class Env:
    def __init__(self, tmp: Path, route: dict[str, Any], store: Store | None = None) -> None:
        (tmp / "settings.yaml").write_text(yaml.safe_dump({"alert_routes": [route]}))
        self.store = store or MemoryStore()
        # A minute into the current clock hour, moved only by the test: hourly budgets see
        # exactly the hours the test means.
        self.now = (time.time() // 3600) * 3600 + 60
        self.chat = RecordingChat()
        self.metrics = Metrics()
        self.turns: list[tuple[ThreadKey, list[Pending]]] = []
        svc = bare_services(
            load_settings({"TANKA_BOT_CONFIG": str(tmp / "settings.yaml")}),
            store=self.store, chat=self.chat, metrics=self.metrics, replica="r1",
            clock=lambda: self.now,
        )  # fmt: skip
        self.svc = svc
        self.threads = Threads(svc, cast(Dispatcher, Inline()), None, self.turn)

    def turn(self, _threads: Threads, key: ThreadKey, items: list[Pending], _lease: Lease) -> None:
        self.turns.append((key, items))

    def send(self, n: AlertNotification) -> None:
        alerts.handle(self.threads, n)

    def outcomes(self) -> dict[str, float]:
        (family,) = self.metrics.alert_groups.collect()
        samples = family.samples
        return {s.labels["outcome"]: s.value for s in samples if s.name.endswith("_total")}


def notification(**changes: Any) -> AlertNotification:
    payload = copy.deepcopy(fixture())
    payload.update(changes)
    return parse_notification(payload)


def second_alert() -> dict[str, Any]:
    alert: dict[str, Any] = copy.deepcopy(fixture()["alerts"][0])
    alert["labels"]["pod"] = "loki-1"
    alert["fingerprint"] = "fp-loki-1"
    return alert


def test_one_session_per_open_group_and_a_new_one_after_it_closed(tmp_path: Path) -> None:
    env = Env(tmp_path, ROUTE)
    env.send(notification())
    ((channel, root, thread),) = env.chat.posts
    assert (channel, thread) == (CHANNEL, None)
    assert "KubeContainerOOMKilled" in root
    ((key, items),) = env.turns
    assert key.channel == CHANNEL
    assert items[0].user == "alert:oom"
    assert items[0].text.startswith("Propose a memory change if warranted.")
    session = env.svc.sessions.get(key)
    assert session is not None
    assert session.requester == "alert:oom"
    assert session.request == "alert KubeContainerOOMKilled"

    env.send(notification())  # a repeat notification
    assert len(env.chat.posts) == 1
    assert len(env.turns) == 1

    firing = fixture()["alerts"] + [second_alert()]
    env.send(notification(alerts=firing))  # an alert joins the group
    assert len(env.turns) == 1
    channel, note, thread = env.chat.posts[-1]
    assert thread == key.thread_ts
    assert "Firing in this group now:" in note
    assert "`pod=loki-1`" in note
    assert "loki-0" not in note

    ended = [{**a, "status": "resolved"} for a in firing]
    env.send(notification(status="resolved", alerts=ended))
    channel, note, thread = env.chat.posts[-1]
    assert thread == key.thread_ts
    assert "The alert group is resolved" in note
    assert len(env.turns) == 1
    posts = len(env.chat.posts)
    env.send(notification(status="resolved", alerts=ended))  # resolved, repeated
    assert len(env.chat.posts) == posts

    env.store.delete(key)  # the reaper closed the session
    env.send(notification(status="resolved", alerts=ended))
    assert len(env.chat.posts) == posts  # a resolved group with no session says nothing
    env.send(notification())
    assert len(env.turns) == 2
    assert env.turns[1][0] != key
    assert env.outcomes() == {"session": 2.0, "repeat": 2.0, "noted": 2.0, "ignored": 1.0}


def test_an_unrouted_group_is_counted_and_the_budget_is_noted_once(tmp_path: Path) -> None:
    env = Env(tmp_path, {**ROUTE, "max_sessions_per_hour": 1})
    labels = {"alertname": "Watchdog"}
    env.send(notification(commonLabels=labels, groupKey="{}:watchdog"))
    assert env.chat.posts == []
    for namespace in ("prod", "staging", "dev", "prod"):
        env.send(notification(groupKey=f'{{}}:{{namespace="{namespace}"}}'))
    assert len(env.turns) == 1
    roots = [text for _, text, thread in env.chat.posts if thread is None]
    assert len(roots) == 2
    assert "Alert route `oom` started 1 session this hour" in roots[1]
    assert env.outcomes() == {"unrouted": 1.0, "session": 1.0, "rate_limited": 2.0, "repeat": 1.0}


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    server: RedisServer = request.getfixturevalue("shared_redis")
    redis_store = RedisStore(server.url, prefix=f"test-{uuid.uuid4().hex[:8]}:")
    yield redis_store
    redis_store.close()


def flood(number: int) -> list[dict[str, Any]]:
    """The group's alerts with one more that nobody has seen: news for the thread."""
    alert = second_alert()
    alert["labels"]["pod"] = f"flood-{number}"
    alert["fingerprint"] = f"fp-flood-{number}"
    alerts: list[dict[str, Any]] = fixture()["alerts"]
    return [*alerts, alert]


def test_notes_in_an_open_thread_are_bounded_per_hour(tmp_path: Path, store: Store) -> None:
    env = Env(tmp_path, {**ROUTE, "max_notes_per_hour": 2}, store)
    env.send(notification())
    ((key, _),) = env.turns
    for number in range(6):  # a token holder sending new fingerprints
        env.send(notification(alerts=flood(number)))
    in_thread = [text for _, text, thread in env.chat.posts if thread == key.thread_ts]
    assert len(in_thread) == 3  # two notes, then one line saying the rest is held back
    assert "`pod=flood-0`" in in_thread[0]
    assert "`pod=flood-1`" in in_thread[1]
    assert in_thread[2].startswith(":no_entry: This thread had 2 alert notes this hour")
    assert "held back until the next hour" in in_thread[2]
    assert env.outcomes() == {"session": 1.0, "noted": 2.0, "notes_held": 4.0}
    assert b'tanka_bot_alert_groups_total{outcome="notes_held"} 4.0' in env.metrics.render()

    env.now += 3600  # the next hour: news is noted again, once more held after the budget
    for number in range(10, 14):
        env.send(notification(alerts=flood(number)))
    later = [text for _, text, thread in env.chat.posts if thread == key.thread_ts][3:]
    assert ["`pod=flood-10`" in later[0], "`pod=flood-11`" in later[1]] == [True, True]
    assert later[2].startswith(":no_entry: This thread had 2 alert notes")
    assert len(later) == 3
    assert len(env.turns) == 1  # notes never start a turn
