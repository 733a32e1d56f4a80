"""POST /alerts/alertmanager: the bearer token, the body bound, a clear 400, the hand-off, 503."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.domain.alerts import AlertNotification
from bot.inbound.alert_receiver import AlertReceiver, authorized
from bot.inbound.http import MAX_BODY
from bot.telemetry.metrics import Metrics
from tests.unit.alerts.test_payload import fixture
from tests.unit.inbound.test_http import Response, environ

TOKEN = "am-unit-token"


def call(receiver: AlertReceiver, body: bytes, **headers: str) -> tuple[int, str]:
    response = Response()
    env = environ("/alerts/alertmanager", body=body, headers=headers)
    out = b"".join(receiver(env, response))
    return response.code, out.decode()


def receiver(*, take: bool = True) -> tuple[AlertReceiver, list[AlertNotification]]:
    taken: list[AlertNotification] = []

    def hand_off(n: AlertNotification) -> str | None:
        taken.append(n)
        return None if take else "the work queue is full"

    return AlertReceiver(TOKEN, Metrics(), hand_off), taken


BODY = json.dumps(fixture()).encode()


@pytest.mark.parametrize(
    "header", ["", f"Basic {TOKEN}", "Bearer", f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", TOKEN]
)
def test_a_missing_or_wrong_token_is_refused_before_the_body_is_read(header: str) -> None:
    app, taken = receiver()
    headers: dict[str, Any] = {"Authorization": header} if header else {}
    assert call(app, BODY, **headers)[0] == 401
    assert taken == []


def test_the_scheme_is_case_insensitive_as_http_says() -> None:
    assert authorized(TOKEN.encode(), f"bearer {TOKEN}")
    assert authorized(TOKEN.encode(), f"Bearer  {TOKEN} ")
    assert not authorized(TOKEN.encode(), f"Bearer {TOKEN.upper()}")


def test_a_good_notification_is_handed_off_and_acked() -> None:
    app, taken = receiver()
    assert call(app, BODY, Authorization=f"Bearer {TOKEN}") == (200, "taken\n")
    assert [n.alertname for n in taken] == ["KubeContainerOOMKilled"]


def test_a_bad_body_gets_a_400_saying_what_is_wrong() -> None:
    app, taken = receiver()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert call(app, b"{not json", **auth) == (400, "the body is not JSON\n")
    code, text = call(app, json.dumps({**fixture(), "version": "3"}).encode(), **auth)
    assert code == 400
    assert "version must be '4'" in text
    assert taken == []


def test_a_body_over_the_bound_is_not_read() -> None:
    app, taken = receiver()
    response = Response()
    env = environ("/alerts/alertmanager", body=b"{}", content_length=str(MAX_BODY + 1),
                  headers={"Authorization": f"Bearer {TOKEN}"})  # fmt: skip
    b"".join(app(env, response))
    assert response.code == 413
    assert taken == []


def test_a_full_pool_answers_503_so_alertmanager_retries() -> None:
    app, _ = receiver(take=False)
    assert call(app, BODY, Authorization=f"Bearer {TOKEN}")[0] == 503
