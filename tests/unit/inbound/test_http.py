"""The signature gate (slack_sdk's real verifier), the body limit, health, ready and metrics."""

from __future__ import annotations

import io
import logging
import threading
import time
from collections.abc import Iterable
from typing import Any, cast

import pytest
from freezegun import freeze_time
from slack_sdk.signature import SignatureVerifier

from bot.inbound.http import MAX_BODY, HealthApp, Readiness
from bot.inbound.slack_signature import SignatureGate
from bot.runtime.scheduler import CacheMaintenance
from bot.store.base import StoreUnavailable
from bot.store.memory import MemoryStore
from bot.telemetry.metrics import Metrics
from bot.workspace.repo_cache import RepoCache

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
BODY = b'{"type":"event_callback","event_id":"Ev0PV52K25","event":{"type":"app_mention"}}'


class Response:
    def __init__(self) -> None:
        self.status = ""
        self.headers: list[tuple[str, str]] = []

    def __call__(self, status: str, headers: list[tuple[str, str]], *_: Any) -> None:
        self.status = status
        self.headers = headers

    @property
    def code(self) -> int:
        return int(self.status.split()[0])

    def header(self, name: str) -> str:
        return dict(self.headers)[name]


def environ(
    path: str = "/slack/events",
    method: str = "POST",
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    content_length: str | None = None,
) -> dict[str, Any]:
    env: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "REMOTE_ADDR": "10.0.0.7",
        "CONTENT_LENGTH": str(len(body)) if content_length is None else content_length,
        "wsgi.input": io.BytesIO(body),
    }
    for name, value in (headers or {}).items():
        env["HTTP_" + name.upper().replace("-", "_")] = value
    return env


def signed(body: bytes, *, secret: str = SECRET, at: float | None = None) -> dict[str, str]:
    timestamp = str(int(time.time() if at is None else at))
    signature = SignatureVerifier(secret).generate_signature(timestamp=timestamp, body=body)
    assert signature is not None
    return {"X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": signature}


class Inner:
    """The app behind the gate (Bolt in production): records what reached it."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def __call__(self, env: dict[str, Any], start: Any) -> Iterable[bytes]:
        length = int(env.get("CONTENT_LENGTH") or 0)
        self.bodies.append(env["wsgi.input"].read(length))
        start("200 OK", [("Content-Type", "application/json")])
        return [b"{}"]


def call(app: Any, env: dict[str, Any]) -> tuple[Response, bytes]:
    response = Response()
    body = b"".join(app(env, response))
    return response, body


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
def inner() -> Inner:
    return Inner()


@pytest.fixture
def gate(inner: Inner, metrics: Metrics) -> SignatureGate:
    return SignatureGate(inner, SECRET, metrics)


def signature_errors(metrics: Metrics) -> float:
    value = metrics.registry.get_sample_value("tanka_bot_errors_total", {"kind": "signature"})
    return value or 0.0


def test_a_correctly_signed_request_reaches_the_app_with_its_body(
    gate: SignatureGate, inner: Inner, metrics: Metrics
) -> None:
    response, body = call(gate, environ(body=BODY, headers=signed(BODY)))
    assert response.code == 200
    assert body == b"{}"
    assert inner.bodies == [BODY]
    assert signature_errors(metrics) == 0
    assert metrics.registry.get_sample_value("tanka_bot_ack_seconds_count") == 1


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param(lambda: signed(BODY, secret="not-the-secret"), id="forged"),
        pytest.param(lambda: signed(BODY, at=time.time() - 301), id="stale"),
        pytest.param(lambda: signed(BODY, at=time.time() + 301), id="future"),
        pytest.param(lambda: signed(b"other body"), id="other-body"),
        pytest.param(lambda: {}, id="no-headers"),
        pytest.param(
            lambda: {"X-Slack-Signature": signed(BODY)["X-Slack-Signature"]}, id="no-timestamp"
        ),
        pytest.param(
            lambda: {"X-Slack-Request-Timestamp": str(int(time.time()))}, id="no-signature"
        ),
        pytest.param(
            lambda: signed(BODY) | {"X-Slack-Request-Timestamp": "yesterday"}, id="bad-timestamp"
        ),
    ],
)
def test_unverified_requests_are_refused_with_401(
    gate: SignatureGate,
    inner: Inner,
    metrics: Metrics,
    caplog: pytest.LogCaptureFixture,
    headers: Any,
) -> None:
    caplog.set_level(logging.DEBUG)
    response, body = call(gate, environ(body=BODY, headers=headers()))
    assert response.code == 401
    assert body == b"invalid request signature\n"
    assert inner.bodies == []
    assert signature_errors(metrics) == 1
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "refused a Slack request" in logged
    assert "10.0.0.7" in logged
    assert SECRET not in logged
    assert "Ev0PV52K25" not in logged  # nor the body


def test_a_non_utf8_body_is_refused(gate: SignatureGate, inner: Inner) -> None:
    body = b"\xff\xfe payload"
    response, _ = call(gate, environ(body=body, headers=signed(b"payload")))
    assert response.code == 401
    assert inner.bodies == []


def test_a_stale_but_correctly_signed_retry_is_still_refused(gate: SignatureGate) -> None:
    # The replay window of the verifier: the same signed request passes for five minutes to the
    # second, and not one second later.
    with freeze_time("2026-01-05 10:00:00") as clock:
        headers = signed(BODY)
        clock.tick(300)
        fresh, _ = call(gate, environ(body=BODY, headers=headers))
        clock.tick(1)
        stale, _ = call(gate, environ(body=BODY, headers=headers))
    assert (fresh.code, stale.code) == (200, 401)


def test_a_request_signed_ahead_of_the_clock_passes_only_within_five_minutes(
    gate: SignatureGate,
) -> None:
    with freeze_time("2026-01-05 10:00:00"):
        now = time.time()
        ahead, _ = call(gate, environ(body=BODY, headers=signed(BODY, at=now + 300)))
        beyond, _ = call(gate, environ(body=BODY, headers=signed(BODY, at=now + 301)))
    assert (ahead.code, beyond.code) == (200, 401)


def test_a_body_over_the_limit_is_refused_before_it_is_read(
    gate: SignatureGate, inner: Inner
) -> None:
    class Unreadable(io.BytesIO):
        def read(self, *_: Any) -> bytes:
            raise AssertionError("the body must not be read")

    env = environ(headers=signed(BODY), content_length=str(MAX_BODY + 1))
    env["wsgi.input"] = Unreadable()
    response, body = call(gate, env)
    assert response.code == 413
    assert body == b"request body too large\n"
    assert inner.bodies == []


def test_a_body_at_the_limit_is_accepted(gate: SignatureGate, inner: Inner) -> None:
    payload = b"x" * MAX_BODY
    response, _ = call(gate, environ(body=payload, headers=signed(payload)))
    assert response.code == 200
    assert inner.bodies == [payload]


def test_a_bad_content_length_is_refused(gate: SignatureGate) -> None:
    response, _ = call(gate, environ(body=BODY, headers=signed(BODY), content_length="lots"))
    assert response.code == 413


def test_an_empty_secret_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="must not be empty"):
        SignatureGate(Inner(), "  ", Metrics())


# HealthApp and Readiness


class FakeCache:
    def __init__(self) -> None:
        self.trouble: str | None = None

    def problem(self) -> str | None:
        return self.trouble


class FakeMaintenance:
    def __init__(self) -> None:
        self.last_error: str | None = None
        self.fetched = threading.Event()
        self.fetched.set()


class DownStore(MemoryStore):
    def ping(self) -> None:
        raise StoreUnavailable("redis at redis:6379: connection refused")


def health(
    store: MemoryStore | None = None,
    cache: FakeCache | None = None,
    maintenance: FakeMaintenance | None = None,
    slack: Any = None,
    metrics: Metrics | None = None,
) -> HealthApp:
    readiness = Readiness(
        store=store or MemoryStore(),
        cache=cast(RepoCache, cache or FakeCache()),
        maintenance=cast(CacheMaintenance, maintenance or FakeMaintenance()),
    )
    return HealthApp(readiness, metrics or Metrics(), slack=slack)


def test_healthz() -> None:
    response, body = call(health(store=DownStore()), environ("/healthz", "GET"))
    assert (response.code, body) == (200, b"ok\n")  # alive even when not ready


def test_readyz_ready() -> None:
    response, body = call(health(), environ("/readyz", "GET"))
    assert (response.code, body) == (200, b"ready\n")


def test_readyz_names_the_store_problem() -> None:
    response, body = call(health(store=DownStore()), environ("/readyz", "GET"))
    assert response.code == 503
    assert body == b"not ready: session store: redis at redis:6379: connection refused\n"


def test_readyz_names_the_repo_cache_problem_and_the_last_attempt() -> None:
    cache, maintenance = FakeCache(), FakeMaintenance()
    cache.trouble = "no clone yet"
    maintenance.last_error = "git fetch: could not resolve host"
    response, body = call(health(cache=cache, maintenance=maintenance), environ("/readyz", "GET"))
    assert response.code == 503
    assert body == (
        b"not ready: repo cache: no clone yet (last attempt: git fetch: could not resolve host)\n"
    )


def test_readyz_waits_for_the_first_fetch_since_start_up() -> None:
    maintenance = FakeMaintenance()
    maintenance.fetched.clear()
    response, body = call(health(maintenance=maintenance), environ("/readyz", "GET"))
    assert response.code == 503
    assert body == b"not ready: repo cache: fetching the repository\n"
    maintenance.fetched.set()
    assert call(health(maintenance=maintenance), environ("/readyz", "GET"))[0].code == 200


def test_metrics_text() -> None:
    metrics = Metrics()
    metrics.events.labels("app_mention").inc()
    response, body = call(health(metrics=metrics), environ("/metrics", "GET"))
    assert response.code == 200
    assert response.header("Content-Type").startswith("text/plain; version=0.0.4")
    assert int(response.header("Content-Length")) == len(body)
    text = body.decode()
    assert 'tanka_bot_events_total{kind="app_mention"} 1.0' in text
    assert "# TYPE tanka_bot_ack_seconds histogram" in text


def test_slack_path_goes_to_the_gate(inner: Inner, metrics: Metrics) -> None:
    app = health(slack=SignatureGate(inner, SECRET, metrics))
    ok, _ = call(app, environ(body=BODY, headers=signed(BODY)))
    forged, _ = call(app, environ(body=BODY, headers=signed(BODY, secret="wrong")))
    assert (ok.code, forged.code) == (200, 401)
    assert inner.bodies == [BODY]


def test_get_on_the_slack_path_is_405(inner: Inner) -> None:
    response, _ = call(health(slack=inner), environ("/slack/events", "GET"))
    assert response.code == 405
    assert inner.bodies == []


def test_slack_path_in_socket_mode_takes_no_posts() -> None:
    # Socket Mode: no /slack/events route, so a POST is one more non-GET request.
    response, body = call(health(slack=None), environ(body=BODY, headers=signed(BODY)))
    assert (response.code, body) == (405, b"GET only\n")


@pytest.mark.parametrize(("path", "method"), [("/healthz", "POST"), ("/metrics", "DELETE")])
def test_wrong_methods_are_405(path: str, method: str) -> None:
    response, _ = call(health(), environ(path, method))
    assert response.code == 405


@pytest.mark.parametrize("path", ["/", "/nope", "/healthz/", "/slack/events/x"])
def test_unknown_paths_are_404(path: str) -> None:
    response, body = call(health(), environ(path, "GET"))
    assert (response.code, body) == (404, b"not found\n")


def test_head_healthz() -> None:
    response, _ = call(health(), environ("/healthz", "HEAD"))
    assert response.code == 200
