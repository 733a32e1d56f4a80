"""Slack's inbound payloads, signed as Slack signs them, for driving a bot over real HTTP.

Builders return the payload shapes Slack sends: `event_callback` envelopes around `app_mention`,
`message` (thread replies, other bots' messages with `bot_id`, `message_changed` edits) and
`reaction_added` events (which carry `item.channel`/`item.ts` and no `thread_ts`), slash command
form fields, `url_verification`, and Socket Mode envelopes.

`sign()` implements Slack's v0 request signing; `post_signed()` sends a signed POST with the
standard library (never through a proxy: these tests talk to 127.0.0.1). `SlackEventSender`
does both with increasing event ids and, for retries, `X-Slack-Retry-Num`:

    sender = SlackEventSender(f"{bot_url}/slack/events", secret=SECRET)
    root = slack.add_message("C0DEPLOY", "<@U0BOT> add env staging", user="U0ALICE")
    sent = sender.app_mention(root)           # 200 from Bolt, which acks before working
    sender.retry(sent)                        # the same event_id again, X-Slack-Retry-Num: 1
    sender.command("new-env staging", channel_id="C0DEPLOY", user_id="U0ALICE")
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.error import HTTPError
from urllib.parse import urlencode

__all__ = [
    "FORM",
    "JSON",
    "PostedMessage",
    "SentEvent",
    "SignedResponse",
    "SlackEventSender",
    "app_mention",
    "event_callback",
    "form_body",
    "message",
    "message_changed",
    "post_signed",
    "reaction_added",
    "reaction_removed",
    "sign",
    "slash_command",
    "socket_envelope",
    "url_verification",
]

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
Payload = dict[str, Any]

TEAM_ID = "T0TEAM"
APP_ID = "A0APP"
BOT_USER_ID = "U0BOT"


class PostedMessage(Protocol):
    """What an event needs of a message (`SlackServer.add_message` returns one)."""

    @property
    def channel(self) -> str: ...
    @property
    def ts(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def user(self) -> str: ...
    @property
    def thread_ts(self) -> str | None: ...
    @property
    def bot_id(self) -> str | None: ...


# -- Events API payloads -------------------------------------------------------------------


def event_callback(
    event: Mapping[str, Any],
    *,
    event_id: str,
    event_time: int | None = None,
    team_id: str = TEAM_ID,
    api_app_id: str = APP_ID,
    bot_user_id: str = BOT_USER_ID,
) -> Payload:
    """The envelope Slack wraps every Events API event in."""
    return {
        "token": "unused-legacy-verification-token",
        "team_id": team_id,
        "context_team_id": team_id,
        "api_app_id": api_app_id,
        "event": dict(event),
        "type": "event_callback",
        "event_id": event_id,
        "event_time": event_time if event_time is not None else int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team_id,
                "user_id": bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-fake-{event_id}",
    }


def _rich_text(text: str) -> list[Payload]:
    # Slack attaches the message as rich_text blocks; bots mostly read `text`.
    return [
        {
            "type": "rich_text",
            "block_id": "fake",
            "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}
            ],
        }
    ]


def app_mention(
    *,
    channel: str,
    user: str,
    text: str,
    ts: str,
    thread_ts: str | None = None,
    team: str = TEAM_ID,
) -> Payload:
    """`app_mention`: `text` contains `<@BOTID>`; `thread_ts` only when said inside a thread."""
    event: Payload = {
        "type": "app_mention",
        "user": user,
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
        "client_msg_id": f"fake-{ts}",
        "team": team,
        "blocks": _rich_text(text),
    }
    if thread_ts and thread_ts != ts:
        event["thread_ts"] = thread_ts
    return event


def message(
    *,
    channel: str,
    user: str,
    text: str,
    ts: str,
    thread_ts: str | None = None,
    parent_user_id: str | None = None,
    bot_id: str | None = None,
    subtype: str | None = None,
    channel_type: str = "channel",
    team: str = TEAM_ID,
) -> Payload:
    """A `message` event; a thread reply carries `thread_ts` and `parent_user_id`.

    A message by another bot carries `bot_id` and, since 2021, usually no subtype.
    """
    event: Payload = {
        "type": "message",
        "user": user,
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
        "channel_type": channel_type,
        "team": team,
        "blocks": _rich_text(text),
    }
    if bot_id is None:
        event["client_msg_id"] = f"fake-{ts}"
    else:
        event["bot_id"] = bot_id
        event["app_id"] = "A0OTHER"
    if subtype:
        event["subtype"] = subtype
    if thread_ts and thread_ts != ts:
        event["thread_ts"] = thread_ts
        event["parent_user_id"] = parent_user_id or user
    return event


def message_changed(
    *,
    channel: str,
    user: str,
    ts: str,
    old_text: str,
    new_text: str,
    event_ts: str,
    thread_ts: str | None = None,
    channel_type: str = "channel",
) -> Payload:
    """An edit: the new message under `message`, the old under `previous_message`.

    The event's own `ts`/`event_ts` are the edit's; the edited message keeps its `ts`. There is
    no top-level `user` or `text`, which is why handlers keyed on those must skip subtypes.
    """
    new: Payload = {"type": "message", "user": user, "text": new_text, "ts": ts}
    new["edited"] = {"user": user, "ts": event_ts}
    old: Payload = {"type": "message", "user": user, "text": old_text, "ts": ts}
    if thread_ts and thread_ts != ts:
        new["thread_ts"] = old["thread_ts"] = thread_ts
    return {
        "type": "message",
        "subtype": "message_changed",
        "hidden": True,
        "channel": channel,
        "channel_type": channel_type,
        "ts": event_ts,
        "event_ts": event_ts,
        "message": new,
        "previous_message": old,
    }


def reaction_added(
    *,
    user: str,
    reaction: str,
    channel: str,
    ts: str,
    item_user: str | None = None,
    event_ts: str | None = None,
) -> Payload:
    """`reaction_added`: the reacted message is `item` (channel + ts); there is no thread_ts."""
    event: Payload = {
        "type": "reaction_added",
        "user": user,
        "reaction": reaction,
        "item": {"type": "message", "channel": channel, "ts": ts},
        "event_ts": event_ts or f"{time.time():.6f}",
    }
    if item_user:
        event["item_user"] = item_user
    return event


def reaction_removed(
    *,
    user: str,
    reaction: str,
    channel: str,
    ts: str,
    item_user: str | None = None,
    event_ts: str | None = None,
) -> Payload:
    event = reaction_added(
        user=user, reaction=reaction, channel=channel, ts=ts, item_user=item_user, event_ts=event_ts
    )
    event["type"] = "reaction_removed"
    return event


def url_verification(challenge: str) -> Payload:
    return {
        "token": "unused-legacy-verification-token",
        "challenge": challenge,
        "type": "url_verification",
    }


# -- slash commands --------------------------------------------------------------------------


def slash_command(
    text: str,
    *,
    channel_id: str,
    user_id: str,
    command: str = "/tanka",
    team_id: str = TEAM_ID,
    team_domain: str = "tanka-test",
    channel_name: str = "deploys",
    user_name: str | None = None,
    api_app_id: str = APP_ID,
    response_url: str = "http://127.0.0.1:9/commands/unused",
    trigger_id: str = "1337.42.fake-trigger",
) -> dict[str, str]:
    """A slash command's fields (`text` is everything after the command)."""
    return {
        "token": "unused-legacy-verification-token",
        "team_id": team_id,
        "team_domain": team_domain,
        "channel_id": channel_id,
        "channel_name": channel_name,
        "user_id": user_id,
        "user_name": user_name or user_id.lower(),
        "command": command,
        "text": text,
        "api_app_id": api_app_id,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id,
    }


def form_body(fields: Mapping[str, str]) -> bytes:
    """Fields as the form body Slack posts for slash commands."""
    return urlencode(fields).encode()


# -- Socket Mode ---------------------------------------------------------------------------


def socket_envelope(
    kind: str,
    payload: Mapping[str, Any],
    *,
    envelope_id: str,
    accepts_response_payload: bool = False,
    retry_attempt: int | None = None,
    retry_reason: str | None = None,
) -> Payload:
    """A Socket Mode envelope (`events_api`, `slash_commands` or `interactive`)."""
    envelope: Payload = {
        "envelope_id": envelope_id,
        "payload": dict(payload),
        "type": kind,
        "accepts_response_payload": accepts_response_payload,
    }
    if kind == "events_api":
        envelope["retry_attempt"] = retry_attempt or 0
        envelope["retry_reason"] = retry_reason or ""
    return envelope


# -- signing and sending -------------------------------------------------------------------


def sign(body: bytes, secret: str, timestamp: int) -> dict[str, str]:
    """Slack's v0 signature headers: HMAC-SHA256 of `v0:{timestamp}:{body}`, hex, `v0=`."""
    base = b"v0:" + str(timestamp).encode() + b":" + body
    digest = hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {"X-Slack-Signature": f"v0={digest}", "X-Slack-Request-Timestamp": str(timestamp)}


@dataclass(frozen=True)
class SignedResponse:
    status: int
    headers: Mapping[str, str]  # keys lower-cased
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode()

    def json(self) -> Any:
        return json.loads(self.body)


# Never a proxy: the bot under test listens on 127.0.0.1.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post_signed(
    url: str,
    body: bytes,
    content_type: str,
    secret: str,
    timestamp: int | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 10.0,
) -> SignedResponse:
    """POST `body` signed with `secret` (at `timestamp`, default now); any status is returned."""
    signed = sign(body, secret, int(time.time()) if timestamp is None else timestamp)
    all_headers = {"Content-Type": content_type, **signed, **(headers or {})}
    # The URL is the test's own bot address (http://127.0.0.1:...), never user input.
    request = urllib.request.Request(url, data=body, headers=all_headers, method="POST")  # noqa: S310
    try:
        with _opener.open(request, timeout=timeout) as reply:
            return SignedResponse(
                reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
            )
    except HTTPError as e:
        with e:
            return SignedResponse(e.code, {k.lower(): v for k, v in e.headers.items()}, e.read())


@dataclass(frozen=True)
class SentEvent:
    event_id: str
    body: bytes  # exactly what was signed and sent, so a retry can resend it
    content_type: str
    response: SignedResponse


class SlackEventSender:
    """Posts signed Slack payloads to a bot's request URL, as Slack would."""

    def __init__(
        self,
        url: str,
        secret: str,
        *,
        team_id: str = TEAM_ID,
        api_app_id: str = APP_ID,
        bot_user_id: str = BOT_USER_ID,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.url = url
        self.secret = secret
        self.team_id = team_id
        self.api_app_id = api_app_id
        self.bot_user_id = bot_user_id
        self.clock = clock
        self.sent: list[SentEvent] = []
        self._event_numbers = itertools.count(1)

    def next_event_id(self) -> str:
        return f"Ev{next(self._event_numbers):08d}"

    def send(self, event: Mapping[str, Any], *, event_id: str | None = None) -> SentEvent:
        """Wrap `event` in an `event_callback` with a fresh (or given) event_id and post it."""
        event_id = event_id or self.next_event_id()
        payload = event_callback(
            event,
            event_id=event_id,
            event_time=int(self.clock()),
            team_id=self.team_id,
            api_app_id=self.api_app_id,
            bot_user_id=self.bot_user_id,
        )
        return self.post(json.dumps(payload).encode(), JSON, event_id=event_id)

    def retry(self, sent: SentEvent, num: int = 1, reason: str = "http_timeout") -> SentEvent:
        """Redeliver the same body, as Slack does when the first delivery seemed to fail."""
        headers = {"X-Slack-Retry-Num": str(num), "X-Slack-Retry-Reason": reason}
        return self.post(sent.body, sent.content_type, event_id=sent.event_id, headers=headers)

    def post(
        self,
        body: bytes,
        content_type: str,
        *,
        event_id: str = "",
        headers: Mapping[str, str] | None = None,
        timestamp: int | None = None,
    ) -> SentEvent:
        stamp = int(self.clock()) if timestamp is None else timestamp
        response = post_signed(self.url, body, content_type, self.secret, stamp, headers=headers)
        sent = SentEvent(event_id, body, content_type, response)
        self.sent.append(sent)
        return sent

    # -- conveniences for messages a test added to the fake Slack ---------------------------

    def app_mention(self, msg: PostedMessage) -> SentEvent:
        return self.send(
            app_mention(
                channel=msg.channel,
                user=msg.user,
                text=msg.text,
                ts=msg.ts,
                thread_ts=msg.thread_ts,
                team=self.team_id,
            )
        )

    def message(self, msg: PostedMessage, *, parent_user_id: str | None = None) -> SentEvent:
        return self.send(
            message(
                channel=msg.channel,
                user=msg.user,
                text=msg.text,
                ts=msg.ts,
                thread_ts=msg.thread_ts,
                parent_user_id=parent_user_id,
                bot_id=msg.bot_id,
                team=self.team_id,
            )
        )

    def reaction_added(self, msg: PostedMessage, reaction: str, *, user: str) -> SentEvent:
        return self.send(
            reaction_added(
                user=user, reaction=reaction, channel=msg.channel, ts=msg.ts, item_user=msg.user
            )
        )

    def command(self, text: str, *, channel_id: str, user_id: str, **fields: str) -> SentEvent:
        """Post `/tanka <text>` (or `command=...`) as the form body Slack sends."""
        form = slash_command(
            text, channel_id=channel_id, user_id=user_id, team_id=self.team_id, **fields
        )
        return self.post(form_body(form), FORM)

    def url_verification(self, challenge: str = "fake-challenge") -> SentEvent:
        return self.post(json.dumps(url_verification(challenge)).encode(), JSON)
