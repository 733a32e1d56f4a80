"""A request on the work queue, as unique JSON text: a mention, a thread reply, a reaction, a
`/tanka new-env` (from the command or the form), an Alertmanager notification, or GitHub's news
on a pull request.

The queue (bot.runtime.admission) may live in Redis and outlive the replica that acknowledged
the request, so the request travels as text. Each item carries a nonce: the queue removes a
finished item by its value, and two identical requests must stay two items.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from dataclasses import dataclass
from typing import Any

from bot.domain.alerts import AlertNotification, AlertPayloadError, parse_notification, to_payload
from bot.domain.commands import NewEnv
from bot.domain.pr_events import EVENT_KINDS, GitHubEvent, PullRef
from bot.domain.requests import Mention, Reaction, SlashCommand, ThreadReply
from bot.errors import Bug


@dataclass(frozen=True, slots=True)
class NewEnvRequest:
    """`/tanka new-env`, typed or from the form: a new thread and a session on it."""

    command: SlashCommand
    action: NewEnv


Work = Mention | ThreadReply | Reaction | NewEnvRequest | AlertNotification | GitHubEvent


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
    elif isinstance(work, Reaction):
        fields = {"kind": "reaction", "channel": work.channel, "user": work.user,
                  "name": work.name, "item_ts": work.item_ts, "added": work.added,
                  "at": work.at, "item_user": work.item_user}  # fmt: skip
    elif isinstance(work, NewEnvRequest):
        fields = {"kind": "new_env", "command": dataclasses.asdict(work.command),
                  "action": dataclasses.asdict(work.action)}  # fmt: skip
    elif isinstance(work, AlertNotification):
        fields = {"kind": "alert", "notification": to_payload(work)}
    else:
        fields = {"kind": "github", "type": type(work).__name__,
                  "event": dataclasses.asdict(work)}  # fmt: skip
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
        if kind == "new_env":
            return NewEnvRequest(SlashCommand(**data["command"]), NewEnv(**data["action"]))
        if kind == "alert":
            return parse_notification(data["notification"])
        if kind == "github":
            return _github(data["type"], data["event"])
    except (ValueError, KeyError, TypeError, AlertPayloadError) as exc:
        raise BadWork(f"unreadable work item ({type(exc).__name__}: {exc})") from None
    raise BadWork(f"unknown work kind {kind!r}")


def _github(name: str, fields: dict[str, Any]) -> GitHubEvent:
    cls = EVENT_KINDS.get(name)
    if cls is None:
        raise BadWork(f"unknown GitHub event {name!r}")
    if "pr" in fields:
        fields = {**fields, "pr": PullRef(**fields["pr"])}
    if "branches" in fields:
        fields = {**fields, "branches": tuple(fields["branches"])}
    return cls(**fields)


def _opt(value: object) -> str | None:
    return None if value is None else str(value)
