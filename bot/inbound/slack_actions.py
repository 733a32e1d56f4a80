"""Slack's interactive payloads (button clicks, the new-env modal's submission, the message
shortcut) turned into domain values. Pure: no I/O, no Bolt.

A click is the matching reaction: Approve is the approve emoji added by the clicker on that
message at the click's time, Cancel the cancel emoji. So one code path (bot.runtime.reactions)
decides, whatever the gesture.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.domain.commands import Help, NewEnv, parse_slash
from bot.domain.pr_state import escape
from bot.domain.requests import Reaction
from bot.inbound.slack_payloads import Ignored
from bot.slack.interactive import APPROVE_ACTION, CANCEL_ACTION
from bot.slack.views import COPY_FROM_BLOCK, INSTRUCTIONS_BLOCK, NAME_BLOCK

_TS = re.compile(r"^\d{1,12}\.\d{1,9}$")
_CHANNEL = re.compile(r"^[CDG][A-Z0-9]{2,}$")
_USER = re.compile(r"^[UW][A-Z0-9]{2,}$")


def _map(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name)
    return value if isinstance(value, Mapping) else {}


def _str(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    return value if isinstance(value, str) else ""


def parse_click(
    body: Mapping[str, Any], *, approve_emoji: str, cancel_emoji: str
) -> Reaction | Ignored:
    """A `block_actions` payload on one of our buttons, as the reaction it stands for."""
    actions = body.get("actions")
    action = actions[0] if isinstance(actions, list) and actions else None
    if not isinstance(action, Mapping):
        return Ignored("block_actions without an action")
    action_id = _str(action, "action_id")
    if action_id not in (APPROVE_ACTION, CANCEL_ACTION):
        return Ignored(f"action {action_id or '(none)'} is not ours")
    container = _map(body, "container")
    channel = _str(container, "channel_id") or _str(_map(body, "channel"), "id")
    ts = _str(container, "message_ts") or _str(_map(body, "message"), "ts")
    user = _str(_map(body, "user"), "id")
    at = _str(action, "action_ts")
    if not (_CHANNEL.match(channel) and _TS.match(ts) and _USER.match(user) and _TS.match(at)):
        return Ignored("click without a valid channel, message ts, user or action_ts")
    name = approve_emoji if action_id == APPROVE_ACTION else cancel_emoji
    return Reaction(channel, user, name, ts, True, float(at))


@dataclass(frozen=True, slots=True)
class NewEnvForm:
    """The modal's submission: the same request as `/tanka new-env NAME INSTRUCTIONS`."""

    channel: str
    user: str
    action: NewEnv
    copy_from: str


def _value(values: Mapping[str, Any], block: str) -> Mapping[str, Any]:
    inner = _map(values, block)
    first = next(iter(inner.values()), None) if inner else None
    return first if isinstance(first, Mapping) else {}


def form_channel(body: Mapping[str, Any]) -> str:
    """The channel the modal was opened from (its private_metadata), or ""."""
    try:
        meta = json.loads(_str(_map(body, "view"), "private_metadata") or "{}")
    except ValueError:
        return ""
    channel = meta.get("channel") if isinstance(meta, dict) else None
    return channel if isinstance(channel, str) and _CHANNEL.match(channel) else ""


def parse_new_env(body: Mapping[str, Any], existing: frozenset[str]) -> NewEnvForm | str:
    """The submitted form, or why it is refused (shown under the name field). `existing`: the
    environments of the form's channel's repository."""
    values = _map(_map(_map(body, "view"), "state"), "values")
    name = (_str(_value(values, NAME_BLOCK), "value") or "").strip().strip("/")
    # A form's input comes back as typed, where a command's text or a message has `&`, `<` and
    # `>` escaped by Slack: escaped here too (and the environment, a directory's name), the
    # instructions the bot posts cannot ping.
    instructions = escape((_str(_value(values, INSTRUCTIONS_BLOCK), "value") or "").strip())
    copy_from = _str(_map(_value(values, COPY_FROM_BLOCK), "selected_option"), "value")
    if not name:
        return "Enter a name, e.g. staging or eu-west/staging."
    if len(name.split()) != 1:
        return "A name is one word without spaces, e.g. eu-west/staging."
    parsed = parse_slash(f"new-env {name}")
    if not isinstance(parsed, NewEnv):
        problem = parsed.problem if isinstance(parsed, Help) else ""
        return (problem or "not a usable environment name").replace("`", "")
    if parsed.name in existing or f"environments/{parsed.name}" in existing:
        return f"{parsed.name} already exists; choose another name."
    channel, user = form_channel(body), _str(_map(body, "user"), "id")
    if not (channel and _USER.match(user)):
        return "This form lost the channel it came from; run /tanka new-env again."
    if copy_from:
        instructions = f"Copy the conventions of {escape(copy_from)}. {instructions}".strip()
    return NewEnvForm(channel, user, NewEnv(parsed.name, instructions), copy_from)


@dataclass(frozen=True, slots=True)
class Ask:
    """The `tanka_ask` shortcut on a message: a session in that message's thread."""

    channel: str
    user: str
    ts: str  # the message the shortcut was used on
    thread_ts: str  # the thread it belongs to (its own ts at the top level)
    author: str
    text: str


def parse_ask(body: Mapping[str, Any]) -> Ask | Ignored:
    message = _map(body, "message")
    channel = _str(_map(body, "channel"), "id")
    user = _str(_map(body, "user"), "id")
    ts = _str(message, "ts") or _str(body, "message_ts")
    thread_ts = _str(message, "thread_ts") or ts
    if not (_CHANNEL.match(channel) and _USER.match(user) and _TS.match(ts)):
        return Ignored("shortcut without a valid channel, user or message ts")
    if not _TS.match(thread_ts):
        return Ignored("shortcut on a message with an invalid thread_ts")
    author = _str(message, "user") or _str(message, "bot_id")
    return Ask(channel, user, ts, thread_ts, author, _str(message, "text"))


def quote(text: str, limit: int = 3000) -> str:
    """`text` as a Slack quote, cut to `limit` characters."""
    body = text if len(text) <= limit else text[:limit] + " …"
    return "\n".join(f"> {line}" for line in body.splitlines() or [""])
