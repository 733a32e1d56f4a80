"""The small interfaces the handlers depend on, so they never see an SDK."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from bot.errors import ServiceUnavailable


class ChatError(ServiceUnavailable):
    """The chat service refused or could not be reached; the message names the call."""

    dependency = "slack"

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class ChatClient(Protocol):
    """Posting into Slack threads (bot.slack.client.SlackChatClient in production)."""

    def post(
        self,
        channel: str,
        text: str,
        *,
        thread_ts: str | None = None,
        blocks: Sequence[dict[str, Any]] | None = None,
    ) -> str:
        """Post a message; its ts."""  # fmt: skip
        ...

    def update(
        self, channel: str, ts: str, text: str, *, blocks: Sequence[dict[str, Any]] | None = None
    ) -> None: ...

    def ephemeral(
        self, channel: str, user: str, text: str, *, thread_ts: str | None = None
    ) -> None: ...

    def upload(
        self, channel: str, thread_ts: str, *, filename: str, title: str, content: str
    ) -> None: ...

    def group_members(self, group_id: str) -> frozenset[str]: ...

    def permalink(self, channel: str, ts: str) -> str | None: ...

    def thread_of(self, channel: str, ts: str) -> str | None:
        """The thread_ts of a message (its own ts at top level), or None if it is unknown."""
        ...
