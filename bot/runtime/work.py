"""A request on the work queue: a mention, a thread reply or a reaction, as unique JSON text.

The queue (bot.runtime.admission) may live in Redis and outlive the replica that acknowledged
the request, so the request travels as text. Each item carries a nonce: the queue removes a
finished item by its value, and two identical requests must stay two items.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from bot.domain.requests import Mention, Reaction, ThreadReply
from bot.errors import Bug

Work = Mention | ThreadReply | Reaction


class BadWork(Bug, ValueError):
    """A queued item that is not a request this version understands."""


def dump(work: Work) -> str:
    fields: dict[str, Any]
    if isinstance(work, Mention):
        fields = {"kind": "mention", "channel": work.channel, "user": work.user,
                  "text": work.text, "ts": work.ts, "thread_ts": work.thread_ts,
                  "title": work.title}  # fmt: skip
    elif isinstance(work, ThreadReply):
        fields = {"kind": "reply", "channel": work.channel, "user": work.user,
                  "text": work.text, "ts": work.ts, "thread_ts": work.thread_ts}  # fmt: skip
    else:
        fields = {"kind": "reaction", "channel": work.channel, "user": work.user,
                  "name": work.name, "item_ts": work.item_ts, "added": work.added,
                  "at": work.at, "item_user": work.item_user}  # fmt: skip
    return json.dumps({**fields, "nonce": uuid.uuid4().hex}, sort_keys=True)


def load(raw: str) -> Work:
    try:
        data = json.loads(raw)
        kind = data["kind"]
        if kind == "mention":
            return Mention(str(data["channel"]), str(data["user"]), str(data["text"]),
                           str(data["ts"]), _opt(data["thread_ts"]),
                           str(data.get("title", "")))  # fmt: skip
        if kind == "reply":
            return ThreadReply(str(data["channel"]), str(data["user"]), str(data["text"]),
                               str(data["ts"]), str(data["thread_ts"]))  # fmt: skip
        if kind == "reaction":
            return Reaction(
                str(data["channel"]), str(data["user"]), str(data["name"]),
                str(data["item_ts"]), bool(data["added"]), float(data["at"]),
                str(data.get("item_user", "")),
            )  # fmt: skip
    except (ValueError, KeyError, TypeError) as exc:
        raise BadWork(f"unreadable work item ({type(exc).__name__}: {exc})") from None
    raise BadWork(f"unknown work kind {kind!r}")


def _opt(value: object) -> str | None:
    return None if value is None else str(value)
