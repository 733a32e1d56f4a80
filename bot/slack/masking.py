"""A `ChatClient` that masks every string it posts: text, every string inside blocks, snippets.

Handlers post through one of these per session, so no code path can post a Secret value the
session's mask knows, whatever message it builds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.domain.ports import ChatClient

Mask = Callable[[str], str]


def mask_tree(value: Any, mask: Mask) -> Any:
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {k: mask_tree(v, mask) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_tree(v, mask) for v in value]
    return value


class MaskingChat:
    def __init__(self, inner: ChatClient, mask: Mask) -> None:
        self.inner = inner
        self.mask = mask

    def post(
        self, channel: str, text: str, *, thread_ts: str | None = None,
        blocks: Sequence[dict[str, Any]] | None = None,
    ) -> str:  # fmt: skip
        masked = mask_tree(list(blocks), self.mask) if blocks else None
        return self.inner.post(channel, self.mask(text), thread_ts=thread_ts, blocks=masked)

    def update(
        self, channel: str, ts: str, text: str, *, blocks: Sequence[dict[str, Any]] | None = None
    ) -> None:
        masked = mask_tree(list(blocks), self.mask) if blocks else None
        self.inner.update(channel, ts, self.mask(text), blocks=masked)

    def ephemeral(
        self, channel: str, user: str, text: str, *, thread_ts: str | None = None
    ) -> None:
        self.inner.ephemeral(channel, user, self.mask(text), thread_ts=thread_ts)

    def upload(
        self, channel: str, thread_ts: str, *, filename: str, title: str, content: str
    ) -> None:
        self.inner.upload(channel, thread_ts, filename=filename, title=self.mask(title),
                          content=self.mask(content))  # fmt: skip

    def group_members(self, group_id: str) -> frozenset[str]:
        return self.inner.group_members(group_id)

    def permalink(self, channel: str, ts: str) -> str | None:
        return self.inner.permalink(channel, ts)

    def thread_of(self, channel: str, ts: str) -> str | None:
        return self.inner.thread_of(channel, ts)
