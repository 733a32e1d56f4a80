"""A thread's pending messages: what waits for the thread's next turn, and how a turn reads it."""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.domain.sessions import Session


@dataclass(frozen=True, slots=True)
class Pending:
    user: str
    text: str
    request: str = ""  # the session's title-worthy request, when it differs from `text`
    ts: str = ""  # the Slack message's ts; "" for a request that is no message (/tanka, alerts)

    def dump(self) -> str:
        return json.dumps(
            {"user": self.user, "text": self.text, "request": self.request, "ts": self.ts}
        )

    @classmethod
    def load(cls, raw: str) -> Pending:
        data = json.loads(raw)
        return cls(str(data["user"]), str(data["text"]), str(data.get("request", "")),
                   str(data.get("ts", "")))  # fmt: skip


def prompt(session: Session, items: list[Pending]) -> str:
    """The turn's prompt: the requester's own message as is, others' messages signed."""
    if len(items) == 1 and items[0].user == session.requester:
        return items[0].text
    return "\n\n".join(f"<@{i.user}> wrote: {i.text}" for i in items)
