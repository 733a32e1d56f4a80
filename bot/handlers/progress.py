"""The one status message of a running turn, edited in place (not a message per tool call).

Edits are throttled well under Slack's per-channel rate (about one message a second), and a
failure to edit never affects the turn. Every tool call is counted in the session's trace and
the metrics, and a call that may have changed files saves the patch at once, so a crash loses no
edit.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.agent.events import Event, ToolCallEvent, ToolResultEvent, UsageEvent
from bot.domain.ports import ChatClient, ChatError
from bot.slack import blocks, interactive
from tools.subagent_port import WRITING_TOOLS  # after each of these, the patch is saved

log = logging.getLogger(__name__)

CONTEXT_WINDOWS = {"anthropic": 200_000, "gemini": 1_000_000, "openai": 128_000}


def describe_call(event: ToolCallEvent) -> str:
    args = event.call.arguments
    main = next(
        (str(args[k]) for k in ("path", "env_path", "file_path", "glob_pattern") if k in args), ""
    )
    return f"{event.call.name} {main}".strip()


class Progress:
    def __init__(
        self,
        chat: ChatClient,
        channel: str,
        status_ts: str,
        *,
        window: int,
        mask: Callable[[str], str],
        on_tool: Callable[[str, bool, float], None],
        on_write: Callable[[], None],
        interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.chat = chat
        self.channel = channel
        self.status_ts = status_ts
        self.window = window
        self.mask = mask
        self.on_tool = on_tool
        self.on_write = on_write
        self.interval = interval
        self.clock = clock
        self.step = 0
        self.share: float | None = None
        self._last_edit = float("-inf")

    def __call__(self, event: Event) -> None:
        if isinstance(event, UsageEvent):
            used = (
                event.call.input_tokens
                + event.call.cache_read_tokens
                + event.call.cache_write_tokens
            )
            self.share = min(used / self.window, 1.0) if self.window else None
        elif isinstance(event, ToolCallEvent):
            self.step += 1
            self._edit(blocks.progress(self.step, describe_call(event), self.share))
        elif isinstance(event, ToolResultEvent):
            ok = not event.result.is_error
            self.on_tool(event.call.name, ok, event.seconds)
            if event.call.name in WRITING_TOOLS:
                self.on_write()

    def _edit(self, text: str) -> None:
        now = self.clock()
        if now - self._last_edit < self.interval:
            return
        self._last_edit = now
        shown = self.mask(text)
        try:  # Cancel stays on the status message while the turn runs
            self.chat.update(self.channel, self.status_ts, shown,
                             blocks=interactive.status_blocks(shown))  # fmt: skip
        except ChatError as exc:
            log.info("progress update failed (the turn goes on): %s", exc)

    def finish(self, text: str) -> None:
        """The last edit: the outcome, and no button left (blocks=None clears them)."""
        try:
            self.chat.update(self.channel, self.status_ts, self.mask(text))
        except ChatError as exc:
            log.info("final status update failed: %s", exc)
