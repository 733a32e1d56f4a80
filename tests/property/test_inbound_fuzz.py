"""Random requests at the real HTTP app of `serve`: nothing is ever answered 5xx, nothing raises.

The app is the one `serve` runs under waitress (bot.app: the routes, the signature gate, the
envelope gate, Bolt with the real listeners, the GitHub receiver), built in-process against the
Slack fake, and called as a WSGI app. Signed requests carry a real signature over a random body
(bytes, JSON of any shape, Slack-shaped envelopes with fields of the wrong type, forms whose
`payload` is anything) under random content types and extra headers: each gets an answer below
500. Unsigned, forged and stale ones get 401. The answers by status are printed after the run.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app import Service, build_service, github_webhook, wsgi_app
from bot.config import load_settings
from bot.inbound.github_webhook import signature
from fakes.scripted_provider import ScriptedProvider
from fakes.slack_server import SlackServer
from tests.property.conftest import STATUSES

SECRET = "dummy-signing-secret-fuzz-51c0"
WEBHOOK_SECRET = "dummy-webhook-secret-fuzz-7e2a"
EXAMPLES = 400
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

App = Any


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp = tmp_path_factory.mktemp("fuzz")
    with SlackServer() as slack:
        environ = {
            "HOME": str(tmp),
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SECRET,
            "TANKA_BOT_SLACK_API_URL": slack.api_url,
            "TANKA_BOT_REPO_URL": str(tmp / "origin.git"),  # never cloned: no request is work
            "TANKA_BOT_WORKDIR": str(tmp / "work"),
            "TANKA_BOT_GITHUB_REPO": "acme/infra",
            "GITHUB_TOKEN": "ghp_" + "FuzzDummyToken0123456789abcdef",
            "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "ANTHROPIC_API_KEY": "dummy-anthropic-fuzz",
        }
        built = build_service(
            load_settings(environ), provider_factory=lambda _: ScriptedProvider([])
        )
        yield built
        built.stop(5)


@pytest.fixture(scope="module")
def app(service: Service) -> App:
    return wsgi_app(service, socket_mode=False, github=github_webhook(service))


def call(app: App, path: str, body: bytes, headers: dict[str, str]) -> int:
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "3000",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
    }
    for name, value in headers.items():
        key = name.upper().replace("-", "_")
        environ[key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}"] = value
    statuses: list[str] = []
    b"".join(app(environ, lambda status, _headers, *_: statuses.append(status)))
    return int(statuses[0].split()[0])


def slack_signed(body: bytes, *, secret: str = SECRET, at: float | None = None) -> dict[str, str]:
    """Slack's v0 signature over the raw bytes (slack_sdk's generator takes text only)."""
    timestamp = str(int(time.time() if at is None else at))
    digest = hmac.new(secret.encode(), b"v0:" + timestamp.encode() + b":" + body, hashlib.sha256)
    return {"X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": f"v0={digest.hexdigest()}"}


# --- what is thrown -----------------------------------------------------------------------------

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
# Names Slack and Bolt read, so random values land where they matter.
FIELDS = (
    "type",
    "event",
    "team",
    "team_id",
    "user",
    "channel",
    "enterprise",
    "authorizations",
    "event_id",
    "view",
    "message",
    "actions",
    "container",
    "item",
    "response_url",
    "response_urls",
    "command",
    "text",
    "ts",
    "thread_ts",
    "reaction",
    "challenge",
    "is_ext_shared_channel",
    "user_team",
    "function_data",
    "assistant_thread",
)
TYPES = (
    "event_callback",
    "url_verification",
    "block_actions",
    "view_submission",
    "shortcut",
    "message_action",
    "app_mention",
    "message",
    "reaction_added",
    "reaction_removed",
    "app_home_opened",
    "team_join",
    "",
)
IDS = ("C0DEPLOY", "U0ALICE", "1700000000.000100", "<@U0BOT> hi", "T0TEAM")
field_values = st.one_of(json_values, st.sampled_from(TYPES), st.sampled_from(IDS))


@st.composite
def envelopes(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(FIELDS), max_size=6, unique=True))
    out: dict[str, Any] = {}
    for key in keys:
        nested = depth < 2 and key in ("event", "item", "message", "view", "container")
        out[key] = draw(envelopes(depth + 1) if nested and draw(st.booleans()) else field_values)
    if depth == 0 and draw(st.booleans()):
        out["type"] = draw(st.sampled_from(TYPES))
    return out


def _text(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


bodies = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    json_values.map(lambda v: json.dumps(v).encode()),
    envelopes().map(lambda v: json.dumps(v).encode()),
    st.one_of(envelopes(), json_values, st.text(max_size=40)).map(
        lambda v: urlencode({"payload": _text(v)}).encode()
    ),
    st.dictionaries(
        st.sampled_from(
            ("command", "text", "channel_id", "user_id", "payload", "ssl_check", "token")
        ),
        st.text(max_size=20),
        max_size=4,
    ).map(lambda v: urlencode(v).encode()),
    st.just(b"[" * 5000 + b"]" * 5000),  # deeper than json's parser goes
)
content_types = st.one_of(
    st.sampled_from(
        (
            "application/json",
            "application/json; charset=utf-8",
            "text/plain",
            "",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
        )
    ),
    st.text(max_size=30).filter(lambda t: "\n" not in t and "\r" not in t),
)
extra_headers = st.dictionaries(
    st.sampled_from(
        (
            "X-Slack-Retry-Num",
            "X-Slack-Retry-Reason",
            "X-GitHub-Event",
            "X-GitHub-Delivery",
            "User-Agent",
            "Accept",
        )
    ),
    st.one_of(
        st.text(max_size=20),
        st.sampled_from(
            ("1", "http_timeout", "check_run", "status", "pull_request", "issue_comment", "ping")
        ),
    ).filter(lambda t: "\n" not in t),
    max_size=3,
)


# --- the properties -------------------------------------------------------------------------------


@FUZZ
@given(body=bodies, content_type=content_types, extra=extra_headers)
def test_a_signed_slack_request_is_never_answered_5xx(
    service: Service, app: App, body: bytes, content_type: str, extra: dict[str, str]
) -> None:
    net = service.svc.metrics.errors.labels("inbound")
    caught = net._value.get()
    status = call(
        app, "/slack/events", body, {**extra, "Content-Type": content_type, **slack_signed(body)}
    )
    STATUSES[f"slack signed {status}"] += 1
    assert status < 500
    # Answered by the edge's reading, not by the safety net behind it (a Bolt failure).
    assert net._value.get() == caught


@FUZZ
@given(
    body=bodies,
    content_type=content_types,
    forgery=st.sampled_from(("none", "secret", "stale", "garbage")),
    garbage=st.text(max_size=40),
)
def test_an_unsigned_or_forged_slack_request_is_refused_401(
    app: App, body: bytes, content_type: str, forgery: str, garbage: str
) -> None:
    headers = {"Content-Type": content_type}
    if forgery == "secret":
        headers |= slack_signed(body, secret="not-the-signing-secret")
    elif forgery == "stale":
        headers |= slack_signed(body, at=time.time() - 3600)
    elif forgery == "garbage":
        headers |= {"X-Slack-Request-Timestamp": garbage, "X-Slack-Signature": garbage}
    status = call(app, "/slack/events", body, headers)
    STATUSES[f"slack forged {status}"] += 1
    assert status == 401


@FUZZ
@given(
    event=st.sampled_from(
        (
            "check_run",
            "status",
            "pull_request",
            "pull_request_review",
            "pull_request_review_comment",
            "issue_comment",
            "ping",
            "",
        )
    ),
    payload=st.one_of(
        envelopes(),
        json_values,
        st.fixed_dictionaries(
            {
                "action": st.sampled_from(
                    ("created", "completed", "submitted", "closed", "opened")
                ),
                "repository": st.one_of(json_values, st.just({"full_name": "acme/infra"})),
                "check_run": st.one_of(
                    json_values,
                    st.fixed_dictionaries(
                        {"pull_requests": json_values, "id": json_values, "head_sha": json_values}
                    ),
                ),
                "pull_request": json_values,
                "issue": json_values,
                "comment": json_values,
                "review": json_values,
                "branches": json_values,
                "id": json_values,
                "sha": json_values,
            }
        ),
    ),
    raw=st.one_of(st.none(), st.binary(max_size=100)),
    delivery=st.one_of(st.none(), st.uuids().map(str), st.text(max_size=8)),
)
def test_a_signed_github_delivery_is_never_answered_5xx(
    app: App, event: str, payload: Any, raw: bytes | None, delivery: str | None
) -> None:
    body = raw if raw is not None else json.dumps(payload).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-Hub-Signature-256": signature(WEBHOOK_SECRET.encode(), body),
    }
    if delivery is not None and "\n" not in delivery:
        headers["X-GitHub-Delivery"] = delivery
    status = call(app, "/github/webhook", body, headers)
    STATUSES[f"github signed {status}"] += 1
    assert status < 500


def test_no_listener_failed_behind_the_answers(
    service: Service, caplog: pytest.LogCaptureFixture, app: App
) -> None:
    # Bolt runs listeners after the ack, on its own threads: their failures are logged, not
    # answered. Malformed events that got past the edge must not break a listener either.
    caplog.set_level(logging.ERROR)
    events = (
        {"type": "message", "text": 5, "ts": []},
        {"type": "reaction_added", "item": {"ts": 1}},
        {"type": "app_mention", "channel": "C1"},
    )
    for event in events:
        body = json.dumps({"type": "event_callback", "event": event}).encode()
        headers = {"Content-Type": "application/json", **slack_signed(body)}
        assert call(app, "/slack/events", body, headers) == 200
    # The last test of the module: the service is stopped after it.
    service.bolt.listener_runner.listener_executor.shutdown(wait=True)
    assert [r.getMessage() for r in caplog.records] == []
    # Every refusal above came from the edge's reading, none from the net behind it.
    assert service.svc.metrics.errors.labels("inbound")._value.get() == 0
