"""The Slack fakes answer the real slack_sdk and slack_bolt as Slack does.

End-to-end tests run the bot against `SlackServer` and drive it with `slack_events`, so this
pins what they rely on: the Web API shapes and errors the real `WebClient` parses, the upload
flow of `files_upload_v2`, the limits Slack enforces, signatures the real `SignatureVerifier`
accepts, and a real Bolt `App` receiving events over HTTP and over Socket Mode.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest
from slack_bolt import Ack, App, Respond, Say
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
from slack_sdk.signature import SignatureVerifier
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from fakes import slack_events as events
from fakes.slack_events import JSON, SlackEventSender
from fakes.slack_server import SlackServer

SECRET = "contract-signing-secret"
CHANNEL = "C0DEPLOY"


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # slack_sdk honours HTTP(S)_PROXY and ignores NO_PROXY; nothing here may leave 127.0.0.1.
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def slack() -> Iterator[SlackServer]:
    with SlackServer(usergroups={"S0SRE": ["U0LEAD", "U0OPS"]}, socket_mode=True) as server:
        yield server
        assert server.errors == []


@pytest.fixture
def client(slack: SlackServer) -> WebClient:
    return WebClient(token=slack.bot_token, base_url=slack.api_url)


# -- Web API ---------------------------------------------------------------------------------


def test_auth_test_names_the_bot_and_checks_the_token(slack: SlackServer) -> None:
    me = WebClient(token=slack.bot_token, base_url=slack.api_url).auth_test()
    assert (me["user_id"], me["bot_id"], me["team_id"]) == ("U0BOT", "B0BOT", "T0TEAM")

    for token, error in (
        ("xoxb-wrong", "invalid_auth"),
        (None, "not_authed"),
        (slack.app_token, "not_allowed_token_type"),
    ):
        with pytest.raises(SlackApiError) as raised:
            WebClient(token=token, base_url=slack.api_url).auth_test()
        assert raised.value.response.status_code == 200
        assert raised.value.response.data == {"ok": False, "error": error}


def test_post_message_assigns_increasing_ts_and_files_replies_in_threads(
    slack: SlackServer, client: WebClient
) -> None:
    root = client.chat_postMessage(channel=CHANNEL, text="root")
    reply = client.chat_postMessage(channel=CHANNEL, text="reply", thread_ts=root["ts"])
    other = client.chat_postMessage(channel="C0OTHER", text="elsewhere")

    stamps = [root["ts"], reply["ts"], other["ts"]]
    assert len(set(stamps)) == 3
    assert [float(t) for t in stamps] == sorted(float(t) for t in stamps)
    assert root["ts"].count(".") == 1
    assert len(root["ts"].split(".")[1]) == 6
    assert root["channel"] == CHANNEL
    assert root["message"]["bot_id"] == "B0BOT"
    assert root["message"]["user"] == "U0BOT"
    assert reply["message"]["thread_ts"] == root["ts"]

    assert [m.text for m in slack.messages(CHANNEL)] == ["root", "reply"]
    assert [m.text for m in slack.thread(CHANNEL, reply["ts"])] == ["root", "reply"]
    assert [m.text for m in slack.messages(CHANNEL, thread_ts=root["ts"])] == ["root", "reply"]
    assert slack.calls("chat.postMessage")[1].args["thread_ts"] == root["ts"]


def test_form_encoded_bodies_are_understood_like_json(
    slack: SlackServer, client: WebClient
) -> None:
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "*hi*"}}]
    # api_call with params= sends a form body, blocks as a JSON string, as older callers do.
    sent = client.api_call(
        "chat.postMessage",
        params={"channel": CHANNEL, "text": "hi", "blocks": json.dumps(blocks)},
    )
    assert sent["ok"] is True
    assert slack.requests[-1].header("content-type") == "application/x-www-form-urlencoded"
    assert slack.message(CHANNEL, sent["ts"]).blocks == blocks


def test_unknown_thread_and_channels_the_bot_left_are_errors(
    slack: SlackServer, client: WebClient
) -> None:
    with pytest.raises(SlackApiError, match="thread_not_found"):
        client.chat_postMessage(channel=CHANNEL, text="x", thread_ts="1600000000.000100")
    slack.remove_bot_from("C0GONE")
    with pytest.raises(SlackApiError, match="not_in_channel"):
        client.chat_postMessage(channel="C0GONE", text="x")


def test_update_edits_in_place_and_only_the_bots_messages(
    slack: SlackServer, client: WebClient
) -> None:
    status = client.chat_postMessage(channel=CHANNEL, text="working… 1/3")
    updated = client.chat_update(channel=CHANNEL, ts=status["ts"], text="working… 2/3")
    assert (updated["ts"], updated["text"]) == (status["ts"], "working… 2/3")
    message = slack.message(CHANNEL, status["ts"])
    assert (message.text, message.edits) == ("working… 2/3", ["working… 1/3"])
    assert len(slack.messages(CHANNEL)) == 1

    human = slack.add_message(CHANNEL, "mine", user="U0ALICE")
    with pytest.raises(SlackApiError, match="cant_update_message"):
        client.chat_update(channel=CHANNEL, ts=human.ts, text="hijacked")
    with pytest.raises(SlackApiError, match="message_not_found"):
        client.chat_update(channel=CHANNEL, ts="1600000000.000100", text="?")


def test_ephemeral_and_permalink(slack: SlackServer, client: WebClient) -> None:
    root = client.chat_postMessage(channel=CHANNEL, text="root")
    reply = client.chat_postMessage(channel=CHANNEL, text="reply", thread_ts=root["ts"])
    note = client.chat_postEphemeral(
        channel=CHANNEL, user="U0EVE", text="only you", thread_ts=root["ts"]
    )
    assert note["message_ts"]
    assert [(e.user, e.text, e.thread_ts) for e in slack.ephemerals] == [
        ("U0EVE", "only you", root["ts"])
    ]
    assert len(slack.messages(CHANNEL)) == 2  # ephemeral messages are not in the channel

    link = client.chat_getPermalink(channel=CHANNEL, message_ts=reply["ts"])["permalink"]
    assert link.startswith(f"https://tanka-test.slack.com/archives/{CHANNEL}/p")
    assert reply["ts"].replace(".", "") in link
    assert f"thread_ts={root['ts']}" in link


def test_replies_and_history_find_a_messages_thread(slack: SlackServer, client: WebClient) -> None:
    root = slack.add_message(CHANNEL, "<@U0BOT> add env", user="U0ALICE")
    proposal = client.chat_postMessage(channel=CHANNEL, text="proposal", thread_ts=root.ts)
    client.chat_postMessage(channel=CHANNEL, text="later top-level")

    # A reaction names only the reacted message; its thread comes from conversations.replies.
    replies = client.conversations_replies(channel=CHANNEL, ts=proposal["ts"], limit=1)
    assert replies["messages"][0]["ts"] == root.ts
    assert replies["messages"][0]["user"] == "U0ALICE"
    full = client.conversations_replies(channel=CHANNEL, ts=root.ts)
    assert [m["text"] for m in full["messages"]] == ["<@U0BOT> add env", "proposal"]
    assert full["messages"][1]["thread_ts"] == root.ts

    history = client.conversations_history(channel=CHANNEL, latest=root.ts, inclusive=True, limit=1)
    assert [m["ts"] for m in history["messages"]] == [root.ts]
    newest = client.conversations_history(channel=CHANNEL)
    assert [m["text"] for m in newest["messages"]] == ["later top-level", "<@U0BOT> add env"]

    with pytest.raises(SlackApiError, match="thread_not_found"):
        client.conversations_replies(channel=CHANNEL, ts="1600000000.000100")


def test_reactions(slack: SlackServer, client: WebClient) -> None:
    msg = slack.add_message(CHANNEL, "please approve", user="U0ALICE")
    client.reactions_add(channel=CHANNEL, timestamp=msg.ts, name="eyes")
    with pytest.raises(SlackApiError, match="already_reacted"):
        client.reactions_add(channel=CHANNEL, timestamp=msg.ts, name="eyes")
    with pytest.raises(SlackApiError, match="message_not_found"):
        client.reactions_add(channel=CHANNEL, timestamp="1600000000.000100", name="eyes")
    slack.add_reaction(CHANNEL, msg.ts, "white_check_mark", user="U0LEAD")

    seen = client.conversations_replies(channel=CHANNEL, ts=msg.ts)["messages"][0]["reactions"]
    assert seen == [
        {"name": "eyes", "users": ["U0BOT"], "count": 1},
        {"name": "white_check_mark", "users": ["U0LEAD"], "count": 1},
    ]


def test_status_usergroups_and_users(slack: SlackServer, client: WebClient) -> None:
    root = slack.add_message(CHANNEL, "<@U0BOT> hi", user="U0ALICE")
    client.assistant_threads_setStatus(
        channel_id=CHANNEL, thread_ts=root.ts, status="is rendering…", loading_messages=["a"]
    )
    client.assistant_threads_setStatus(channel_id=CHANNEL, thread_ts=root.ts, status="")
    assert [(s.thread_ts, s.status, s.loading_messages) for s in slack.statuses] == [
        (root.ts, "is rendering…", ("a",)),
        (root.ts, "", ()),
    ]
    with pytest.raises(SlackApiError, match="invalid_thread_ts"):
        client.assistant_threads_setStatus(channel_id=CHANNEL, thread_ts="1.2", status="x")

    assert client.usergroups_users_list(usergroup="S0SRE")["users"] == ["U0LEAD", "U0OPS"]
    with pytest.raises(SlackApiError, match="no_such_subteam"):
        client.usergroups_users_list(usergroup="S0NOPE")
    slack.usergroups_need_upgrade = True
    with pytest.raises(SlackApiError, match="plan_upgrade_required"):
        client.usergroups_users_list(usergroup="S0SRE")

    alice = client.users_info(user="U0ALICE")["user"]
    assert (alice["id"], alice["is_bot"], alice["deleted"]) == ("U0ALICE", False, False)
    assert client.users_info(user="U0BOT")["user"]["is_bot"] is True
    with pytest.raises(SlackApiError, match="user_not_found"):
        client.users_info(user="nobody")


def test_files_upload_v2_shares_a_snippet_in_the_thread(
    slack: SlackServer, client: WebClient
) -> None:
    root = client.chat_postMessage(channel=CHANNEL, text="proposal")
    diff = "--- a/main.jsonnet\n+++ b/main.jsonnet\n@@ -1 +1 @@\n-replicas: 1\n+replicas: 5\n"
    done = client.files_upload_v2(
        channel=CHANNEL,
        thread_ts=root["ts"],
        content=diff,
        filename="prod.diff",
        title="environments/prod",
        snippet_type="diff",
        initial_comment="Rendered diff",
    )
    # The SDK asked for an upload URL, POSTed the bytes there, then completed the upload.
    assert [c.method for c in slack.calls()][-2:] == [
        "files.getUploadURLExternal",
        "files.completeUploadExternal",
    ]
    asked = slack.calls("files.getUploadURLExternal")[0].args
    assert (asked["filename"], int(asked["length"]), asked["snippet_type"]) == (
        "prod.diff",
        len(diff.encode()),
        "diff",
    )
    assert [r.path for r in slack.requests if r.path.startswith("/upload/")] == [
        f"/upload/{done['file']['id']}"
    ]
    assert done["file"]["title"] == "environments/prod"

    [upload] = slack.uploads
    assert (upload.filename, upload.title, upload.text) == ("prod.diff", "environments/prod", diff)
    assert (upload.channel, upload.thread_ts, upload.initial_comment) == (
        CHANNEL,
        root["ts"],
        "Rendered diff",
    )
    share = slack.thread(CHANNEL, root["ts"])[-1]
    assert (share.text, share.files[0]["id"]) == ("Rendered diff", upload.id)
    info = client.files_info(file=upload.id)["file"]
    assert info["shares"]["public"][CHANNEL][0] == {"ts": share.ts, "thread_ts": root["ts"]}


# -- Slack's limits --------------------------------------------------------------------------


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def test_long_text_is_truncated_with_a_warning(slack: SlackServer, client: WebClient) -> None:
    # The SDK passes the warning on silently: only the response (and the fake) show it.
    sent = client.chat_postMessage(channel=CHANNEL, text="x" * 40_001)
    assert sent["warning"] == "message_truncated"
    assert sent["response_metadata"]["warnings"] == ["message_truncated"]
    message = slack.message(CHANNEL, sent["ts"])
    assert (len(message.text), message.truncated) == (40_000, True)
    assert [v.error for v in slack.violations] == ["message_truncated"]


def test_block_limits_are_invalid_blocks(slack: SlackServer, client: WebClient) -> None:
    with pytest.raises(SlackApiError, match="invalid_blocks") as too_many:
        client.chat_postMessage(channel=CHANNEL, text="t", blocks=[_section("b")] * 51)
    assert too_many.value.response["response_metadata"]["messages"] == [
        "[ERROR] no more than 50 items allowed [json-pointer:/blocks]"
    ]
    with pytest.raises(SlackApiError, match="invalid_blocks") as too_long:
        client.chat_postMessage(channel=CHANNEL, text="t", blocks=[_section("y" * 3_001)])
    assert too_long.value.response["response_metadata"]["messages"] == [
        "[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"
    ]
    # Right at the limits is fine.
    client.chat_postMessage(channel=CHANNEL, text="t", blocks=[_section("y" * 3_000)])
    client.chat_postMessage(channel=CHANNEL, text="t", blocks=[_section("b")] * 50)
    # Many sections, each fine, can still add up to too much text for one message.
    with pytest.raises(SlackApiError, match="msg_blocks_too_long"):
        client.chat_postMessage(channel=CHANNEL, text="t", blocks=[_section("z" * 2_500)] * 5)
    with pytest.raises(SlackApiError, match="msg_too_long"):
        client.chat_postMessage(channel=CHANNEL, markdown_text="m" * 12_001)
    with pytest.raises(SlackApiError, match="markdown_text_conflict"):
        client.chat_postMessage(channel=CHANNEL, text="t", markdown_text="m")
    first = slack.messages(CHANNEL)[0].ts
    with pytest.raises(SlackApiError, match="invalid_blocks"):
        client.chat_update(channel=CHANNEL, ts=first, text="t", blocks=[_section("y" * 3_001)])

    assert [v.error for v in slack.violations] == [
        "invalid_blocks",
        "invalid_blocks",
        "msg_blocks_too_long",
        "msg_too_long",
        "invalid_blocks",
    ]
    assert len(slack.messages(CHANNEL)) == 2


# -- failure injection -----------------------------------------------------------------------


def test_rate_limits_answer_429_with_retry_after(slack: SlackServer, client: WebClient) -> None:
    slack.rate_limit("chat.postMessage", retry_after=7)
    with pytest.raises(SlackApiError) as raised:
        client.chat_postMessage(channel=CHANNEL, text="hello")
    assert raised.value.response.status_code == 429
    assert raised.value.response.headers["retry-after"] == "7"
    assert raised.value.response["error"] == "ratelimited"
    assert slack.messages(CHANNEL) == []

    # The SDK's own retry handler waits Retry-After (+ <1s jitter) and tries again.
    slack.rate_limit("chat.postMessage", retry_after=0)
    patient = WebClient(
        token=slack.bot_token,
        base_url=slack.api_url,
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)],
    )
    assert patient.chat_postMessage(channel=CHANNEL, text="hello")["ok"] is True
    assert [c.status for c in slack.calls("chat.postMessage")] == [429, 429, 200]


def test_injected_errors_and_outages_then_recovery(slack: SlackServer, client: WebClient) -> None:
    slack.fail("reactions.add", "not_in_channel", times=2)
    slack.fail("chat.update", status=500)
    msg = slack.add_message(CHANNEL, "m")
    for _ in range(2):
        with pytest.raises(SlackApiError, match="not_in_channel"):
            client.reactions_add(channel=CHANNEL, timestamp=msg.ts, name="eyes")
    client.reactions_add(channel=CHANNEL, timestamp=msg.ts, name="eyes")

    posted = client.chat_postMessage(channel=CHANNEL, text="v1")
    with pytest.raises(SlackApiError) as outage:
        client.chat_update(channel=CHANNEL, ts=posted["ts"], text="v2")
    assert outage.value.response.status_code == 500
    assert slack.message(CHANNEL, posted["ts"]).text == "v1"


def test_wait_for_returns_the_value_once_it_appears(slack: SlackServer, client: WebClient) -> None:
    timer = threading.Timer(0.2, lambda: client.chat_postMessage(channel=CHANNEL, text="late"))
    timer.start()
    started = time.monotonic()
    found = slack.wait_for(lambda: slack.bot_messages(CHANNEL), timeout=5)
    assert [m.text for m in found] == ["late"]
    assert time.monotonic() - started < 2
    timer.join()
    with pytest.raises(AssertionError, match="not met within"):
        slack.wait_for(lambda: slack.messages("C0EMPTY"), timeout=0.1)


# -- signing ---------------------------------------------------------------------------------


def test_signatures_verify_with_slack_sdks_verifier() -> None:
    body = json.dumps(events.url_verification("c")).encode()
    now = int(time.time())
    headers = events.sign(body, SECRET, now)
    verifier = SignatureVerifier(SECRET)
    assert verifier.is_valid(
        body, headers["X-Slack-Request-Timestamp"], headers["X-Slack-Signature"]
    )
    assert headers["X-Slack-Signature"] == verifier.generate_signature(
        timestamp=str(now), body=body
    )
    assert not verifier.is_valid(body + b" ", str(now), headers["X-Slack-Signature"])
    assert not SignatureVerifier("other").is_valid(body, str(now), headers["X-Slack-Signature"])
    stale = events.sign(body, SECRET, now - 600)
    assert not verifier.is_valid(body, str(now - 600), stale["X-Slack-Signature"])


# -- a real Bolt app ---------------------------------------------------------------------------


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _bolt_app(slack: SlackServer, seen: list[dict[str, Any]]) -> App:
    app = App(
        client=WebClient(token=slack.bot_token, base_url=slack.api_url), signing_secret=SECRET
    )

    @app.event("app_mention")
    def mention(event: dict[str, Any], say: Say, request: Any) -> None:
        seen.append({"event": event, "retry": request.headers.get("x-slack-retry-num")})
        say(text=f"on it, <@{event['user']}>", thread_ts=event.get("thread_ts") or event["ts"])

    @app.command("/tanka")
    def tanka(ack: Ack, respond: Respond, command: dict[str, Any]) -> None:
        ack(text=f"got {command['text']}")
        if command["text"] == "envs":
            respond(text="environments/dev\nenvironments/prod")

    return app


@pytest.fixture
def bolt_url(slack: SlackServer, seen: list[dict[str, Any]]) -> Iterator[str]:
    server: WSGIServer = make_server(
        "127.0.0.1", 0, SlackRequestHandler(_bolt_app(slack, seen)), handler_class=_QuietHandler
    )
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/slack/events"
    server.shutdown()
    thread.join()
    server.server_close()


@pytest.fixture
def seen() -> list[dict[str, Any]]:
    return []


def test_bolt_over_http_answers_a_signed_mention_in_its_thread(
    slack: SlackServer, bolt_url: str, seen: list[dict[str, Any]]
) -> None:
    assert [c.method for c in slack.calls()] == ["auth.test"]  # Bolt checks its token at start
    sender = SlackEventSender(bolt_url, SECRET)
    root = slack.add_message(CHANNEL, "<@U0BOT> add env staging", user="U0ALICE")

    sent = sender.app_mention(root)
    assert sent.response.status == 200  # acked before the listener runs
    [reply] = slack.wait_for(lambda: slack.bot_messages(CHANNEL, root.ts))
    assert (reply.text, reply.thread_ts) == ("on it, <@U0ALICE>", root.ts)
    assert seen[0]["event"]["ts"] == root.ts
    assert seen[0]["retry"] is None

    # A retry carries the same event_id and X-Slack-Retry-Num; Bolt does not dedupe it.
    again = sender.retry(sent)
    assert (again.response.status, again.event_id) == (200, sent.event_id)
    slack.wait_for(lambda: len(slack.bot_messages(CHANNEL, root.ts)) == 2)
    assert seen[1]["retry"] == ["1"]


def test_bolt_over_http_checks_signatures_and_answers_commands(
    slack: SlackServer, bolt_url: str
) -> None:
    sender = SlackEventSender(bolt_url, "wrong-secret")
    assert sender.url_verification().response.status == 401
    stale = SlackEventSender(bolt_url, SECRET, clock=lambda: time.time() - 600)
    assert stale.url_verification().response.status == 401

    sender = SlackEventSender(bolt_url, SECRET)
    challenge = sender.url_verification("c-123").response
    assert (challenge.status, challenge.json()) == (200, {"challenge": "c-123"})

    answer = sender.command("new-env staging with 2 replicas", channel_id=CHANNEL, user_id="U0A")
    assert answer.response.status == 200
    assert answer.response.text == "got new-env staging with 2 replicas"
    # respond() posts to the command's response_url, which the fake records.
    url = slack.new_response_url()
    sender.command("envs", channel_id=CHANNEL, user_id="U0A", response_url=url)
    [later] = slack.wait_for(lambda: slack.responses)
    assert later.body["text"] == "environments/dev\nenvironments/prod"

    raw = events.post_signed(bolt_url, b"{}", JSON, SECRET)
    assert raw.status == 404  # Bolt answers what no listener handles with 404


# -- Socket Mode -----------------------------------------------------------------------------


def test_socket_mode_handler_connects_receives_and_acks(slack: SlackServer) -> None:
    assert slack.socket_mode is not None
    seen: list[dict[str, Any]] = []
    handler = SocketModeHandler(_bolt_app(slack, seen), slack.app_token, ping_interval=1)
    try:
        handler.connect()  # type: ignore[no-untyped-call]  # Bolt leaves it unannotated
        slack.socket_mode.wait_connected()
        assert slack.calls("apps.connections.open")[0].token == slack.app_token
        assert slack.socket_mode.received == []  # the hello needs no answer

        root = slack.add_message(CHANNEL, "<@U0BOT> hi", user="U0ALICE")
        payload = events.event_callback(
            events.app_mention(channel=CHANNEL, user="U0ALICE", text=root.text, ts=root.ts),
            event_id="Ev0SOCKET1",
        )
        envelope_id = slack.socket_mode.push_event(payload, retry_attempt=1, retry_reason="timeout")
        ack = slack.socket_mode.wait_for_ack(envelope_id)
        assert (ack.envelope_id, ack.payload) == (envelope_id, None)
        [reply] = slack.wait_for(lambda: slack.bot_messages(CHANNEL, root.ts))
        assert reply.text == "on it, <@U0ALICE>"
        assert seen[0]["retry"] == ["1"]  # Bolt maps retry_attempt to x-slack-retry-num

        command = events.slash_command("help", channel_id=CHANNEL, user_id="U0ALICE")
        command_ack = slack.socket_mode.wait_for_ack(slack.socket_mode.push_command(command))
        assert command_ack.payload == {"text": "got help"}

        # Slack asks clients to reconnect now and then; the SDK opens a fresh URL, and events
        # flow on the new connection (an ack proves the client switched to it).
        slack.socket_mode.disconnect()
        slack.socket_mode.wait_connected(count=2)
        slack.wait_for(lambda: slack.socket_mode is not None and slack.socket_mode.connected == 1)
        assert len(slack.calls("apps.connections.open")) == 2
        again = slack.socket_mode.push_command(command)
        assert slack.socket_mode.wait_for_ack(again).payload == {"text": "got help"}
    finally:
        handler.close()  # type: ignore[no-untyped-call]


def test_socket_mode_urls_need_the_app_token_and_a_fresh_ticket(
    slack: SlackServer, client: WebClient
) -> None:
    assert slack.socket_mode is not None
    with pytest.raises(SlackApiError, match="not_allowed_token_type"):
        client.apps_connections_open(app_token=slack.bot_token)
    url = client.apps_connections_open(app_token=slack.app_token)["url"]
    assert url.startswith(f"{slack.socket_mode.url}/link/?ticket=")

    with connect(url) as ws:
        hello = json.loads(ws.recv(timeout=5))
        assert hello["type"] == "hello"
        assert hello["connection_info"] == {"app_id": "A0APP"}
    with pytest.raises(InvalidStatus), connect(url):
        pass  # a ticket opens one connection only


# -- views, members, interactive payloads ------------------------------------------------------


def test_views_open_and_publish_are_checked_as_slack_does_and_logged(
    slack: SlackServer, client: WebClient
) -> None:
    from bot.slack.views import new_env_modal  # noqa: PLC0415 - the bot's own modal

    modal = new_env_modal(CHANNEL, ["environments/dev"])
    assert client.views_open(trigger_id="1.2.fake", view=modal)["view"]["id"]
    with pytest.raises(SlackApiError) as missing:
        client.views_open(trigger_id="", view=modal)
    assert missing.value.response["error"] == "invalid_trigger_id"
    too_long = {**modal, "title": {"type": "plain_text", "text": "A title of 25 characters."}}
    with pytest.raises(SlackApiError) as refused:
        client.views_open(trigger_id="1.2.fake", view=too_long)
    assert refused.value.response["error"] == "invalid_arguments"
    # An input block has no place on a Home tab, nor 101 blocks.
    for blocks in (modal["blocks"], [{"type": "divider"}] * 101):
        with pytest.raises(SlackApiError):
            client.views_publish(user_id="U0ALICE", view={"type": "home", "blocks": blocks})
    home = {"type": "home", "blocks": [{"type": "section",
                                        "text": {"type": "mrkdwn", "text": "hi"}}]}  # fmt: skip
    client.views_publish(user_id="U0ALICE", view=home)
    assert slack.home_of("U0ALICE") == home
    assert [v.surface for v in slack.views()] == ["modal", "home"]
    assert {v.error for v in slack.violations} == {"invalid_arguments"}
    assert any("title over 24" in v.detail for v in slack.violations)
    assert any("only allowed in modals" in v.detail for v in slack.violations)
    assert len(slack.calls("views.open")) == 3  # the call log keeps refused calls too


def test_a_message_with_an_input_block_is_refused(slack: SlackServer, client: WebClient) -> None:
    block = {"type": "input", "label": {"type": "plain_text", "text": "x"},
             "element": {"type": "plain_text_input", "action_id": "v"}}  # fmt: skip
    with pytest.raises(SlackApiError) as refused:
        client.chat_postMessage(channel=CHANNEL, text="x", blocks=[block])
    assert refused.value.response["error"] == "invalid_blocks"


def test_conversations_members_pages_through_the_members(
    slack: SlackServer, client: WebClient
) -> None:
    slack.set_members(CHANNEL, [f"U0P{i}" for i in range(5)])
    first = client.conversations_members(channel=CHANNEL, limit=4)
    cursor = first["response_metadata"]["next_cursor"]
    second = client.conversations_members(channel=CHANNEL, limit=4, cursor=cursor)
    assert len(first["members"]) == 4
    assert second["response_metadata"]["next_cursor"] == ""
    assert set(first["members"]) | set(second["members"]) == {
        *(f"U0P{i}" for i in range(5)),
        slack.bot_user_id,
    }


def test_bolt_routes_the_fakes_interactive_payloads_and_answers_view_errors(
    slack: SlackServer,
) -> None:
    from fakes.slack_interactions import (  # noqa: PLC0415
        block_actions,
        message_action,
        send_interaction,
        view_submission,
    )
    from fakes.slack_views import submission_answer_problems  # noqa: PLC0415

    app = App(client=WebClient(token=slack.bot_token, base_url=slack.api_url),
              signing_secret=SECRET, token_verification_enabled=False)  # fmt: skip
    seen: list[str] = []

    @app.action("tanka_approve")
    def approve(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        seen.append(body["user"]["id"])

    @app.view("tanka_new_env")
    def submit(ack: Ack) -> None:
        ack(response_action="errors", errors={"name": "taken"})

    @app.shortcut("tanka_ask")
    def ask(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        seen.append(body["message"]["text"])

    handler = SlackRequestHandler(app)
    server = make_server("127.0.0.1", 0, handler, WSGIServer, _QuietHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        sender = SlackEventSender(f"http://127.0.0.1:{server.server_port}/slack/events", SECRET)
        click = block_actions(user="U0BOB", channel=CHANNEL, message_ts="1.000001",
                              action_id="tanka_approve")  # fmt: skip
        assert send_interaction(sender, click).response.status == 200
        from bot.slack.views import new_env_modal  # noqa: PLC0415

        view = new_env_modal(CHANNEL, [])
        submitted = view_submission(view, user="U0BOB", values={"name": {"value": "dev"}})
        sent = send_interaction(sender, submitted)
        answer = json.loads(sent.response.text)
        assert answer == {"response_action": "errors", "errors": {"name": "taken"}}
        assert submission_answer_problems(answer, view) == []
        assert submission_answer_problems({"response_action": "errors",
                                           "errors": {"nope": "x"}}, view)  # fmt: skip
        shortcut = message_action(user="U0BOB", channel=CHANNEL,
                                  message={"ts": "1.000002", "text": "hello"})  # fmt: skip
        assert send_interaction(sender, shortcut).response.status == 200
        assert seen == ["U0BOB", "hello"]
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
