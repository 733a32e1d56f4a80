"""An in-memory `ChatClient` (bot.domain.ports) that records every call, for tests of handlers.

For end-to-end tests over HTTP use fakes.slack_server instead; this one is for unit tests that
only need to see what a handler posted (and make posting fail).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from bot.domain.ports import ChatError


class RecordingChat:
    def __init__(self, members: Mapping[str, frozenset[str]] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.members: dict[str, frozenset[str]] = dict(members or {})
        self.fail = False  # True: every post raises ChatError, as Slack's errors do
        self.thread = "1700000000.000100"  # what thread_of answers
        self._lock = threading.Lock()
        self._ts = itertools.count(900)

    def _record(self, method: str, **args: Any) -> None:
        with self._lock:
            self.calls.append((method, args))

    @property
    def posts(self) -> list[tuple[str, str, str | None]]:
        """(channel, text, thread_ts) of every message posted."""
        with self._lock:
            return [(a["channel"], a["text"], a["thread_ts"]) for m, a in self.calls if m == "post"]

    def clear(self) -> None:
        with self._lock:
            self.calls.clear()

    def post(
        self, channel: str, text: str, *, thread_ts: str | None = None,
        blocks: Sequence[dict[str, Any]] | None = None,
    ) -> str:  # fmt: skip
        if self.fail:
            raise ChatError("Slack chat.postMessage failed: channel_not_found")
        self._record("post", channel=channel, text=text, thread_ts=thread_ts, blocks=blocks)
        return f"1700000000.{next(self._ts):06d}"

    def update(
        self, channel: str, ts: str, text: str, *, blocks: Sequence[dict[str, Any]] | None = None
    ) -> None:
        self._record("update", channel=channel, ts=ts, text=text, blocks=blocks)

    def ephemeral(
        self, channel: str, user: str, text: str, *, thread_ts: str | None = None
    ) -> None:
        self._record("ephemeral", channel=channel, user=user, text=text, thread_ts=thread_ts)

    def upload(
        self, channel: str, thread_ts: str, *, filename: str, title: str, content: str
    ) -> None:
        self._record("upload", channel=channel, thread_ts=thread_ts, filename=filename,
                     title=title, content=content)  # fmt: skip

    def group_members(self, group_id: str) -> frozenset[str]:
        return self.members[group_id]

    def permalink(self, channel: str, ts: str) -> str | None:
        return f"https://example.slack.com/archives/{channel}/p{ts.replace('.', '')}"

    def thread_of(self, channel: str, ts: str) -> str | None:
        return self.thread
