"""`ChatClient` on slack_sdk's WebClient: retries on rate limits, errors as `ChatError`."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)

from bot.domain.ports import ChatError

log = logging.getLogger(__name__)

_RETRYABLE = frozenset({"ratelimited", "service_unavailable", "internal_error", "fatal_error"})


def web_client(token: str, base_url: str, *, timeout: int = 30) -> WebClient:
    """A WebClient that waits out 429s (Retry-After), and retries dropped connections and
    Slack's 500s and 503s with backoff.

    HTTPS_PROXY is honoured as the SDK does (it ignores NO_PROXY). No `proxy=""` to turn that
    off: Socket Mode's client takes an empty proxy for a proxy at port 80 and never connects.
    """
    return WebClient(
        token=token,
        base_url=base_url,
        timeout=timeout,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=2),
            RateLimitErrorRetryHandler(max_retry_count=3),
            # the SDK counts retries across handlers: a call is tried at most 4 times in all
            ServerErrorRetryHandler(max_retry_count=3),
        ],
    )


class SlackChatClient:
    def __init__(self, client: WebClient) -> None:
        self.client = client

    def _call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        try:
            # The SDK's own method (chat_postMessage for chat.postMessage) knows its encoding.
            response = getattr(self.client, method.replace(".", "_"))(**kwargs)
        except SlackApiError as exc:
            error = str(exc.response.get("error", "unknown_error"))
            raise ChatError(
                f"Slack {method} failed: {error}", retryable=error in _RETRYABLE
            ) from None
        except SlackClientError as exc:
            raise ChatError(
                f"Slack {method} failed: {type(exc).__name__}", retryable=True
            ) from None
        except OSError as exc:
            raise ChatError(
                f"Slack {method} unreachable: {exc.strerror or exc}", retryable=True
            ) from None
        data = response.data
        return data if isinstance(data, dict) else {}

    def post(
        self, channel: str, text: str, *, thread_ts: str | None = None,
        blocks: Sequence[dict[str, Any]] | None = None,
    ) -> str:  # fmt: skip
        args: dict[str, Any] = {"channel": channel, "text": text, "unfurl_links": False}
        if thread_ts:
            args["thread_ts"] = thread_ts
        if blocks:
            args["blocks"] = list(blocks)
        return str(self._call("chat.postMessage", **args).get("ts", ""))

    def update(
        self, channel: str, ts: str, text: str, *, blocks: Sequence[dict[str, Any]] | None = None
    ) -> None:
        args: dict[str, Any] = {"channel": channel, "ts": ts, "text": text}
        args["blocks"] = list(blocks) if blocks else []
        self._call("chat.update", **args)

    def ephemeral(
        self, channel: str, user: str, text: str, *, thread_ts: str | None = None
    ) -> None:
        args: dict[str, Any] = {"channel": channel, "user": user, "text": text}
        if thread_ts:
            args["thread_ts"] = thread_ts
        self._call("chat.postEphemeral", **args)

    def upload(
        self, channel: str, thread_ts: str, *, filename: str, title: str, content: str
    ) -> None:
        try:
            self.client.files_upload_v2(
                channel=channel, thread_ts=thread_ts, filename=filename, title=title,
                content=content, snippet_type="diff",
            )  # fmt: skip
        except SlackApiError as exc:
            error = str(exc.response.get("error", "unknown_error"))
            raise ChatError(
                f"Slack file upload failed: {error}", retryable=error in _RETRYABLE
            ) from None
        except (SlackClientError, OSError) as exc:
            raise ChatError(
                f"Slack file upload failed: {type(exc).__name__}", retryable=True
            ) from None

    def group_members(self, group_id: str) -> frozenset[str]:
        data = self._call("usergroups.users.list", usergroup=group_id)
        users = data.get("users") or []
        return frozenset(str(u) for u in users)

    def channel_members(self, channel: str) -> frozenset[str]:
        """Everyone in `channel` (conversations.members, every page); ChatError if unreadable."""
        found: set[str] = set()
        cursor = ""
        while True:
            args: dict[str, Any] = {"channel": channel, "limit": 1000}
            if cursor:
                args["cursor"] = cursor
            data = self._call("conversations.members", **args)
            found.update(str(u) for u in data.get("members") or [])
            meta = data.get("response_metadata")
            cursor = str(meta.get("next_cursor") or "") if isinstance(meta, dict) else ""
            if not cursor:
                return frozenset(found)

    def workspace_url(self) -> str:
        """The workspace's URL (auth.test), e.g. https://acme.slack.com/."""
        return str(self._call("auth.test").get("url") or "https://slack.com/")

    def publish_home(self, user: str, view: dict[str, Any]) -> None:
        self._call("views.publish", user_id=user, view=view)

    def permalink(self, channel: str, ts: str) -> str | None:
        try:
            link = self._call("chat.getPermalink", channel=channel, message_ts=ts).get("permalink")
        except ChatError as exc:
            log.info("no permalink for %s/%s: %s", channel, ts, exc)
            return None
        return str(link) if link else None

    def thread_of(self, channel: str, ts: str) -> str | None:
        data = self._call("conversations.replies", channel=channel, ts=ts, limit=1)
        messages = data.get("messages") or []
        if not messages or not isinstance(messages[0], dict):
            return None
        first = messages[0]
        return str(first.get("thread_ts") or first.get("ts") or "") or None
