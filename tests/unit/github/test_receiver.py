"""POST /github/webhook: signature, body limit, dedupe across replicas, hand-off, the 404."""

from __future__ import annotations

import io
import json
from typing import Any

from bot.domain.pr_events import GitHubEvent, subject
from bot.inbound.github_receiver import WebhookReceiver
from bot.inbound.github_webhook import signature
from bot.inbound.http import MAX_BODY, HealthApp
from bot.store.base import StoreUnavailable
from bot.store.memory import MemoryStore
from bot.telemetry.metrics import Metrics
from tests.unit.inbound.test_http import Response, environ

SECRET = "whsec-unit-test"
PAYLOAD = {
    "action": "created",
    "issue": {"number": 7, "pull_request": {"url": "https://api.github.com/x"}},
    "comment": {"user": {"login": "dave"}, "body": "LGTM", "html_url": "https://h/1"},
    "repository": {"full_name": "acme/infra"},
}


def _request(body: bytes, *, secret: str = SECRET, delivery: str = "d-1",
             event: str = "issue_comment") -> dict[str, Any]:  # fmt: skip
    headers = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery}
    if secret:
        headers["X-Hub-Signature-256"] = signature(secret.encode(), body)
    return environ("/github/webhook", body=body, headers=headers)


def _receiver(store: MemoryStore | None = None) -> tuple[WebhookReceiver, list[GitHubEvent]]:
    taken: list[GitHubEvent] = []
    return WebhookReceiver(SECRET, store or MemoryStore(), Metrics(), taken.append), taken


def _call(app: Any, env: dict[str, Any]) -> tuple[int, str]:
    response = Response()
    body = b"".join(app(env, response))
    return response.code, body.decode()


def test_a_signed_delivery_is_parsed_and_handed_off_once() -> None:
    receiver, taken = _receiver()
    body = json.dumps(PAYLOAD).encode()
    assert _call(receiver, _request(body))[0] == 202
    assert [subject(e) for e in taken] == ["acme/infra#7"]
    assert _call(receiver, _request(body)) == (200, "already delivered\n")
    assert len(taken) == 1


def test_a_repeated_delivery_is_dropped_by_another_replica_sharing_the_store() -> None:
    store = MemoryStore()
    first, taken_first = _receiver(store)
    second, taken_second = _receiver(store)
    body = json.dumps(PAYLOAD).encode()
    _call(first, _request(body))
    assert _call(second, _request(body))[0] == 200
    assert (len(taken_first), len(taken_second)) == (1, 0)


COMMENT: dict[str, Any] = {
    **PAYLOAD,
    "comment": {"id": 4242, "updated_at": "2026-11-27T09:00:00Z", "user": {"login": "dave"},
                "body": "LGTM", "html_url": "https://h/1"},
}  # fmt: skip


def test_a_replay_under_a_new_delivery_id_is_dropped_by_the_payloads_own_ids() -> None:
    """A signed body replayed with a fresh X-GitHub-Delivery still reports the same comment."""
    store = MemoryStore()
    first, taken = _receiver(store)
    second, taken_second = _receiver(store)  # another replica sharing the store
    body = json.dumps(COMMENT).encode()
    assert _call(first, _request(body, delivery="d-1"))[0] == 202
    assert _call(second, _request(body, delivery="d-2")) == (200, "already delivered\n")
    without = _request(body)
    del without["HTTP_X_GITHUB_DELIVERY"]
    assert _call(first, without) == (200, "already delivered\n")
    assert (len(taken), len(taken_second)) == (1, 0)
    # The first delivery's id was recorded too: replaying it with another comment id is dropped.
    other = json.dumps(COMMENT | {"comment": COMMENT["comment"] | {"id": 4343}}).encode()
    assert _call(first, _request(other, delivery="d-1"))[0] == 200


MERGED: dict[str, Any] = {
    "action": "closed",
    "pull_request": {"number": 7, "merged": True, "merged_by": {"login": "dave"},
                     "html_url": "https://h/pull/7", "updated_at": "2026-11-27T09:00:00Z"},
    "repository": {"full_name": "acme/infra"},
}  # fmt: skip


def test_a_replay_of_an_event_without_an_object_id_is_dropped_by_its_body() -> None:
    """A pull_request event names no comment, review or run: a signed body replayed under a new
    delivery id, or with none, would post "merged" in the thread again."""
    store = MemoryStore()
    first, taken = _receiver(store)
    second, taken_second = _receiver(store)
    body = json.dumps(MERGED).encode()
    assert _call(first, _request(body, delivery="d-1", event="pull_request"))[0] == 202
    replay = _request(body, delivery="d-2", event="pull_request")
    assert _call(second, replay) == (200, "already delivered\n")
    without = _request(body, event="pull_request")
    del without["HTTP_X_GITHUB_DELIVERY"]
    assert _call(first, without) == (200, "already delivered\n")
    assert (len(taken), len(taken_second)) == (1, 0)
    reopened = json.dumps(MERGED | {"action": "reopened"}).encode()  # another body: news
    assert _call(first, _request(reopened, delivery="d-3", event="pull_request"))[0] == 202


def test_an_empty_delivery_id_is_refused_with_the_reason() -> None:
    receiver, taken = _receiver()
    body = json.dumps(COMMENT).encode()
    for empty in ("", "  "):
        code, text = _call(receiver, _request(body, delivery=empty))
        assert code == 400
        assert "X-GitHub-Delivery header is empty" in text
    assert taken == []
    assert _call(receiver, _request(body, delivery="d-1"))[0] == 202  # nothing was recorded


def test_a_new_comment_an_edit_or_a_checks_next_state_is_not_a_replay() -> None:
    receiver, taken = _receiver()
    edited = COMMENT["comment"] | {"updated_at": "2026-11-27T09:05:00Z"}
    for i, payload in enumerate([
        COMMENT,
        COMMENT | {"comment": COMMENT["comment"] | {"id": 4343}},  # another comment
        COMMENT | {"action": "edited", "comment": edited},  # not reported, but not a replay
    ]):  # fmt: skip
        assert _call(receiver, _request(json.dumps(payload).encode(), delivery=f"d-{i}"))[0] == 202
    assert len(taken) == 2


def test_forged_or_unsigned_deliveries_are_401_and_never_recorded_as_seen() -> None:
    receiver, taken = _receiver()
    body = json.dumps(PAYLOAD).encode()
    assert _call(receiver, _request(body, secret="wrong"))[0] == 401
    assert _call(receiver, _request(body, secret=""))[0] == 401
    tampered = _request(body)
    tampered["wsgi.input"] = io.BytesIO(body.replace(b"LGTM", b"NOPE"))
    assert _call(receiver, tampered)[0] == 401
    assert taken == []
    assert _call(receiver, _request(body))[0] == 202  # the real one still gets through


def test_too_big_and_malformed_bodies() -> None:
    receiver, taken = _receiver()
    big = _request(b"{}")
    big["CONTENT_LENGTH"] = str(MAX_BODY + 1)
    assert _call(receiver, big)[0] == 413
    assert _call(receiver, _request(b"not json", delivery="d-2"))[0] == 400
    assert _call(receiver, _request(b"[1]", delivery="d-3"))[0] == 400
    missing = json.dumps({"action": "created", "issue": {}, "repository": {}}).encode()
    code, text = _call(receiver, _request(missing, delivery="d-4"))
    assert (code, taken) == (202, [])
    assert "ignored" in text


def test_a_store_outage_is_a_503_so_the_delivery_shows_as_failed() -> None:
    class Down(MemoryStore):
        def first_seen(self, token: str, ttl: float) -> bool:
            raise StoreUnavailable("Redis at redis:6379 is unavailable: refused")

    receiver, taken = _receiver(Down())
    assert _call(receiver, _request(json.dumps(PAYLOAD).encode()))[0] == 503
    assert taken == []


def test_a_store_failing_after_one_key_was_recorded_still_takes_the_delivery() -> None:
    """A redelivery would be dropped by the key already recorded: a 503 would lose the news."""

    class FailsSecond(MemoryStore):
        calls = 0

        def first_seen(self, token: str, ttl: float) -> bool:
            self.calls += 1
            if self.calls == 2:
                raise StoreUnavailable("Redis at redis:6379 is unavailable: reset")
            return super().first_seen(token, ttl)

    store = FailsSecond()
    receiver, taken = _receiver(store)
    body = json.dumps(COMMENT).encode()
    assert _call(receiver, _request(body, delivery="d-1"))[0] == 202
    assert len(taken) == 1
    assert _call(receiver, _request(body, delivery="d-1")) == (200, "already delivered\n")


def test_the_path_is_404_without_a_secret_and_post_only_with_one() -> None:
    receiver, _ = _receiver()
    without = HealthApp(None, Metrics(), slack=None)  # type: ignore[arg-type]
    assert _call(without, _request(b"{}"))[0] == 404
    with_secret = HealthApp(None, Metrics(), slack=None, github=receiver)  # type: ignore[arg-type]
    assert _call(with_secret, environ("/github/webhook", method="GET"))[0] == 405
