"""Slack event and command payloads turned into domain values. Pure: no I/O, no Bolt.

Every inbound payload becomes one of `Mention`, `ThreadReply`, `Reaction`, `SlashCommand`, or
`Ignored` with the reason (logged at debug level, never answered). A mention in a channel the bot
is in arrives twice, as `app_mention` and as `message`; both parse to the same `Mention`, so the
(channel, ts) dedupe keeps whichever arrives first and nothing is lost when one of them is late.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.domain.requests import Inbound, Mention, Reaction, SlashCommand, ThreadReply
from tools import linear_re

# RE2, linear: under re, a message of `<@UA|` repeated with no `>` scanned to its end from each.
_MENTION = linear_re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_TS = re.compile(r"^\d{1,12}\.\d{1,9}$")
_CHANNEL = re.compile(r"^[CDG][A-Z0-9]{2,}$")
_USER = re.compile(r"^[UW][A-Z0-9]{2,}$")


@dataclass(frozen=True, slots=True)
class Ignored:
    reason: str


Parsed = Inbound | Ignored


def _str(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    return value if isinstance(value, str) else ""


def strip_mentions(text: str, bot_user_id: str) -> str:
    """The text with the bot's own mention(s) removed and whitespace tidied."""
    cleaned = _own_mention(bot_user_id).sub(" ", text) if bot_user_id else text
    return " ".join(cleaned.split()) if "\n" not in cleaned else cleaned.strip()


@functools.lru_cache(maxsize=8)
def _own_mention(bot_user_id: str) -> linear_re.Pattern:
    return linear_re.compile(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>")


def mentions(text: str, user_id: str) -> bool:
    return any(m.group(1) == user_id for m in _MENTION.finditer(text))


def parse_event(event: Mapping[str, Any], *, bot_user_id: str, bot_id: str = "") -> Parsed:
    """One Events API `event` object (the envelope's `event` field) as a domain value."""
    kind = _str(event, "type")
    if kind == "app_mention":
        return _message(event, bot_user_id, bot_id, mention_event=True)
    if kind == "message":
        return _message(event, bot_user_id, bot_id, mention_event=False)
    if kind in ("reaction_added", "reaction_removed"):
        return _reaction(event, added=kind == "reaction_added")
    return Ignored(f"event type {kind or '(none)'} is not handled")


def _message(  # noqa: PLR0911 - one early return per rule reads best
    event: Mapping[str, Any], bot_user_id: str, bot_id: str, *, mention_event: bool
) -> Parsed:
    if event.get("subtype"):
        return Ignored(f"message subtype {event.get('subtype')}")
    if event.get("bot_id") or event.get("bot_profile"):
        return Ignored("a bot's message")
    channel, user, ts = _str(event, "channel"), _str(event, "user"), _str(event, "ts")
    if not (_CHANNEL.match(channel) and _USER.match(user) and _TS.match(ts)):
        return Ignored("message without a valid channel, user or ts")
    if user == bot_user_id:
        return Ignored("the bot's own message")
    thread_ts = _str(event, "thread_ts") or None
    if thread_ts is not None and not _TS.match(thread_ts):
        return Ignored("message with an invalid thread_ts")
    raw = _str(event, "text")
    if mention_event or (bot_user_id and mentions(raw, bot_user_id)):
        return Mention(channel, user, strip_mentions(raw, bot_user_id), ts, thread_ts)
    if thread_ts is None or thread_ts == ts:
        return Ignored("a channel message that does not mention the bot")
    return ThreadReply(channel, user, raw.strip(), ts, thread_ts)


def _reaction(event: Mapping[str, Any], *, added: bool) -> Parsed:
    item = event.get("item")
    if not isinstance(item, Mapping) or item.get("type") != "message":
        return Ignored("reaction on something other than a message")
    channel, ts, user = _str(item, "channel"), _str(item, "ts"), _str(event, "user")
    name = _str(event, "reaction").split("::", 1)[0]
    at = _str(event, "event_ts")
    if not (_CHANNEL.match(channel) and _TS.match(ts) and _USER.match(user) and name):
        return Ignored("reaction without a valid channel, ts, user or name")
    if not _TS.match(at):
        return Ignored("reaction without a valid event_ts")
    author = _str(event, "item_user")
    return Reaction(channel, user, name, ts, added, float(at),
                    author if _USER.match(author) else "")  # fmt: skip


def parse_command(body: Mapping[str, Any]) -> SlashCommand | Ignored:
    """A slash command's form fields (as Bolt hands them over)."""
    channel, user = _str(body, "channel_id"), _str(body, "user_id")
    if not (_CHANNEL.match(channel) and _USER.match(user)):
        return Ignored("slash command without a valid channel_id or user_id")
    return SlashCommand(channel, user, _str(body, "command"), _str(body, "text").strip())


def message_dedupe_key(value: Inbound) -> str | None:
    """The (channel, ts) key shared by the twins of one human message; None for reactions."""
    if isinstance(value, Mention | ThreadReply):
        return f"msg:{value.channel}:{value.ts}"
    return None
