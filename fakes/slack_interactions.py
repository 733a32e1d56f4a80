"""Slack's interactive payloads, as Slack posts them to the request URL: a form body with one
field, `payload`, holding JSON (button clicks, modal submissions, message shortcuts), signed
like events. And `app_home_opened`, an ordinary event."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Mapping
from typing import Any

from fakes.slack_events import (
    APP_ID,
    FORM,
    TEAM_ID,
    SentEvent,
    SlackEventSender,
    form_body,
)

Payload = dict[str, Any]
_numbers = itertools.count(1)


def _trigger() -> str:
    return f"{next(_numbers)}.4242.fake-trigger"


def _action_ts() -> str:
    return f"{time.time():.6f}"


def block_actions(
    *, user: str, channel: str, message_ts: str, action_id: str,
    message: Mapping[str, Any] | None = None, action_ts: str | None = None,
    block_id: str = "tanka_actions", thread_ts: str | None = None,
) -> Payload:  # fmt: skip
    """A click on a button of a message."""
    return {
        "type": "block_actions",
        "team": {"id": TEAM_ID, "domain": "tanka-test"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
        "api_app_id": APP_ID,
        "token": "unused-legacy-verification-token",
        "container": {"type": "message", "message_ts": message_ts, "channel_id": channel,
                      "is_ephemeral": False, **({"thread_ts": thread_ts} if thread_ts else {})},
        "trigger_id": _trigger(),
        "channel": {"id": channel, "name": "deploys"},
        "message": dict(message or {"type": "message", "ts": message_ts}),
        "response_url": "http://127.0.0.1:9/actions/unused",
        "actions": [{
            "type": "button", "action_id": action_id, "block_id": block_id,
            "text": {"type": "plain_text", "text": action_id}, "value": "",
            "action_ts": action_ts or _action_ts(),
        }],
    }  # fmt: skip


def view_submission(
    view: Mapping[str, Any], *, user: str, values: Mapping[str, Mapping[str, Any]],
) -> Payload:  # fmt: skip
    """A submission of `view` (as it was opened): `values` maps block_id to the element's value
    object ({"value": ...} or {"selected_option": ...}), under action_id "value"."""
    state = {
        block: {"value": {"type": "plain_text_input", **value}} for block, value in values.items()
    }
    return {
        "type": "view_submission",
        "team": {"id": TEAM_ID, "domain": "tanka-test"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
        "api_app_id": APP_ID,
        "token": "unused-legacy-verification-token",
        "trigger_id": _trigger(),
        "view": {**view, "id": "V0FAKE", "team_id": TEAM_ID, "app_id": APP_ID,
                 "state": {"values": state}, "hash": "1.fake"},
        "response_urls": [],
    }  # fmt: skip


def message_action(
    *, user: str, channel: str, message: Mapping[str, Any], callback_id: str = "tanka_ask",
) -> Payload:  # fmt: skip
    """A message shortcut used on `message` (its ts, user, text, and thread_ts if a reply)."""
    return {
        "type": "message_action",
        "callback_id": callback_id,
        "team": {"id": TEAM_ID, "domain": "tanka-test"},
        "user": {"id": user, "name": user.lower()},
        "channel": {"id": channel, "name": "deploys"},
        "message_ts": message["ts"],
        "message": {"type": "message", **message},
        "trigger_id": _trigger(),
        "response_url": "http://127.0.0.1:9/actions/unused",
        "token": "unused-legacy-verification-token",
    }  # fmt: skip


def app_home_opened(*, user: str, tab: str = "home") -> Payload:
    """The `app_home_opened` event (wrap with SlackEventSender.send)."""
    return {"type": "app_home_opened", "user": user, "channel": "D0HOME", "tab": tab,
            "event_ts": _action_ts()}  # fmt: skip


def send_interaction(sender: SlackEventSender, payload: Mapping[str, Any]) -> SentEvent:
    """Post `payload` signed, as the form body Slack sends for interactions."""
    return sender.post(form_body({"payload": json.dumps(payload)}), FORM)
