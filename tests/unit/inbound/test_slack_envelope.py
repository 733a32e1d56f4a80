"""The edge reading of signed Slack requests (bot.inbound.slack_envelope) and Socket Mode's."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from slack_bolt import App
from slack_sdk import WebClient

from bot.inbound.slack_envelope import EnvelopeGate, Unreadable, read_envelope
from bot.inbound.slack_socket import CheckedSocketModeHandler
from bot.telemetry.metrics import Metrics
from fakes import slack_events as events
from fakes.slack_server import SlackServer
from tests.unit.inbound.test_http import call, environ

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (b"not json", JSON, "the body is not JSON"),
        (b"[1, 2]", JSON, "the body is JSON but not an object"),
        (b'"text"', JSON, "the body is JSON but not an object"),
        (b"", JSON, "the body is empty"),
        (b"\x80", JSON, "the body is not UTF-8"),
        (b"[" * 5000 + b"]" * 5000, JSON, "the body is not JSON"),
        (b'{"type":"event_callback","event":null}', JSON,
         "the body: an event_callback without an event object that has a type"),
        (b'{"event":null}', JSON, "the body: event is not an object"),
        (b'{"type":"block_actions","view":null}', JSON, "the body: view is not an object"),
        (b'{"type":"event_callback","event":{"type":5}}', JSON,
         "the body: an event_callback without an event object that has a type"),
        (b"payload=notjson", FORM, "the form's payload field is not JSON"),
        (b"payload=%5B1%5D", FORM, "the form's payload field is JSON but not an object"),
        (b"payloads=1", FORM, "the form has no payload field"),
        (b'{"enterprise":5}', JSON, "the body: enterprise is neither a string nor an object"),
        (b'{"team":{"id":[]}}', "text/plain", "the body: team.id is not a string"),
        (b'{"type":"block_actions","actions":"x"}', JSON,
         "the body: actions is not a list of objects"),
        (b'{"type":"view_submission","view":{"team_id":7}}', JSON,
         "the body.view: team_id is not a string"),
        (b'{"authorizations":[{"team":3}],"type":"x"}', JSON,
         "the body.authorizations[0]: team is neither a string nor an object"),
        (b'{"type":"event_callback","event":{"type":"message","channel":{"id":1}}}', JSON,
         "the body.event: channel.id is not a string"),
        # found by the fuzz test: Bolt follows event.event and read "e" as an authorization
        (b'{"event":{"event":{"authorizations":"e"}}}', JSON,
         "the body.event.event: authorizations is not a list of objects"),
        (b'{"event":{"event":{"event":{"event":{"team":1}}}}}', JSON,
         "the body.event.event.event.event: team is neither a string nor an object"),
        (b'{"event":' * 12 + b"{}" + b"}" * 12, JSON,
         "the body" + ".event" * 10 + ": events nested more than 8 deep"),
    ],
)  # fmt: skip
def test_an_unreadable_body_says_what_is_wrong(body: bytes, content_type: str, reason: str) -> None:
    assert read_envelope(body, content_type) == Unreadable(reason)


def test_what_slack_sends_is_read_as_bolt_reads_it() -> None:
    event = {"type": "event_callback", "event": {"type": "app_mention", "channel": "C1"}}
    assert read_envelope(json.dumps(event).encode(), JSON) == event
    assert read_envelope(json.dumps(event).encode(), "text/plain") == event  # starts with {
    action = {"type": "block_actions", "actions": [{"action_id": "a"}], "user": {"id": "U1"}}
    form = "payload=" + json.dumps(action).replace(" ", "")
    assert read_envelope(form.encode(), FORM) == action
    command = b"command=%2Ftanka&text=status&channel_id=C1&user_id=U1"
    assert read_envelope(command, FORM) == {"command": "/tanka", "text": "status",
                                            "channel_id": "C1", "user_id": "U1"}  # fmt: skip


class Bolt:
    """Bolt's WSGI handler as seen from the gate: an answer, and whether it was called."""

    def __init__(self, status: str) -> None:
        self.status = status
        self.calls = 0

    def __call__(self, env: dict[str, Any], start: Any) -> list[bytes]:
        self.calls += 1
        start(self.status, [("Content-Type", "application/json")])
        return [b'{"error": "unhandled request"}' if self.status.startswith("404") else b""]


def test_an_unreadable_request_is_answered_400_in_one_line_without_reaching_bolt(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bolt, metrics = Bolt("200 OK"), Metrics()
    caplog.set_level(logging.INFO)
    request = environ(body=b"[1]") | {"CONTENT_TYPE": JSON}
    response, body = call(EnvelopeGate(bolt, metrics), request)
    assert (response.code, body, bolt.calls) == (400, b"the body is JSON but not an object\n", 0)
    assert [r.getMessage() for r in caplog.records] == [
        "refused a signed Slack request: the body is JSON but not an object"
    ]
    assert all(r.exc_info is None for r in caplog.records)
    assert metrics.errors.labels("unreadable")._value.get() == 1


def test_a_well_formed_request_no_listener_takes_is_answered_200() -> None:
    bolt = Bolt("404 Not Found")  # Bolt: unhandled request, which Slack would retry
    body = b'{"type":"event_callback","event":{"type":"channel_created"}}'
    response, _ = call(EnvelopeGate(bolt, Metrics()), environ(body=body))
    assert (response.code, bolt.calls) == (200, 1)


def test_a_subscribed_event_goes_to_its_listener_without_bolt() -> None:
    bolt, taken = Bolt("200 OK"), []
    gate = EnvelopeGate(bolt, Metrics(), events=lambda body, event: taken.append(event["type"]),
                        event_types=("app_mention", "message"))  # fmt: skip
    mention = b'{"type":"event_callback","event":{"type":"app_mention"}}'
    response, text = call(gate, environ(body=mention))
    assert (response.code, text, taken, bolt.calls) == (200, b"", ["app_mention"], 0)
    other = b'{"type":"event_callback","event":{"type":"channel_created"}}'
    response, _ = call(gate, environ(body=other))  # not subscribed: Bolt's to answer
    assert (response.code, taken, bolt.calls) == (200, ["app_mention"], 1)
    check = b'{"type":"url_verification","challenge":"c"}'
    call(gate, environ(body=check))
    assert bolt.calls == 2


class Broken:
    def __call__(self, env: dict[str, Any], start: Any) -> list[bytes]:
        raise AttributeError("'NoneType' object has no attribute 'get'")


@pytest.mark.parametrize("bolt", [Bolt("500 Internal Server Error"), Broken()])
def test_a_request_bolt_fails_on_is_answered_400_with_the_traceback_logged(
    bolt: Any, caplog: pytest.LogCaptureFixture
) -> None:
    metrics = Metrics()
    body = b'{"type":"event_callback","event":{"type":"app_mention"}}'
    response, text = call(EnvelopeGate(bolt, metrics), environ(body=body))
    assert (response.code, text) == (400, b"the request could not be handled\n")
    assert metrics.errors.labels("inbound")._value.get() == 1
    if isinstance(bolt, Broken):
        assert [r.exc_info is not None for r in caplog.records] == [True]


def test_over_a_real_socket_malformed_envelopes_are_acked_and_the_connection_goes_on() -> None:
    with SlackServer(socket_mode=True) as slack:
        assert slack.socket_mode is not None
        client = WebClient(token=slack.bot_token, base_url=slack.api_url)
        bolt = App(client=client, signing_secret="dummy", token_verification_enabled=False)
        seen: list[Any] = []

        def got(event: dict[str, Any]) -> None:  # Bolt passes arguments by name
            seen.append(event)

        bolt.event("app_mention")(got)
        metrics = Metrics()
        handler = CheckedSocketModeHandler(bolt, slack.app_token, metrics)
        try:
            handler.connect()  # type: ignore[no-untyped-call]  # Bolt leaves it unannotated
            bad = [[1, 2], {"type": "event_callback", "event": None}, "text", {"team": 5}, None]
            for number, payload in enumerate(bad):
                envelope = {"envelope_id": f"bad-{number}", "type": "events_api",
                            "payload": payload, "accepts_response_payload": False}  # fmt: skip
                slack.socket_mode.push(envelope)
                assert slack.socket_mode.wait_for_ack(f"bad-{number}").payload is None
            mention = events.app_mention(channel="C0DEPLOY", user="U0ALICE", text="<@U0BOT> hi",
                                         ts="1700000000.000100")  # fmt: skip
            good = slack.socket_mode.push_event(events.event_callback(mention, event_id="Ev1"))
            slack.socket_mode.wait_for_ack(good)
            slack.wait_for(lambda: seen)
            assert slack.socket_mode.connection_count == 1  # the same connection throughout
            assert metrics.errors.labels("unreadable")._value.get() == len(bad)
        finally:
            handler.close()  # type: ignore[no-untyped-call]
