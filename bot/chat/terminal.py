"""How a turn looks in a terminal: compact tool lines, interim remarks, retries and token use.

`TerminalObserver` turns loop events into lines such as

      → file_read path=lib/x.libsonnet
      ← ok 42 lines: local k = import 'k.libsonnet';
      ✗ file_edit failed: old_text not found in lib/x.libsonnet

each cut to one line of at most `WIDTH` characters. Text the model writes before calling tools is
shown as it comes; the final answer is left to the caller, so it is printed once, after the tools.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any, TextIO

from bot.agent.events import (
    Event,
    RetryEvent,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from bot.agent.messages import Usage

WIDTH = 120


def one_line(text: str, width: int = WIDTH) -> str:
    """Collapse whitespace runs (newlines included) and cut to `width` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def describe_call(name: str, arguments: Mapping[str, Any]) -> str:
    args = " ".join(f"{key}={_value(value)}" for key, value in arguments.items())
    return "  → " + one_line(f"{name} {args}".rstrip(), WIDTH - 4)


def describe_result(content: str, is_error: bool) -> str:
    if is_error:
        return "  ✗ " + one_line(content, WIDTH - 4)
    lines = content.splitlines()
    first = next((line for line in lines if line.strip()), "")
    count = f"{len(lines)} line" + ("" if len(lines) == 1 else "s")
    return "  ← " + one_line(f"ok {count}: {first}" if first else "ok (no output)", WIDTH - 4)


def describe_usage(turn: Usage, session: Usage, steps: int) -> str:
    cached = turn.cache_read_tokens + turn.cache_write_tokens
    cache = f" · cache {cached:,}" if cached else ""
    calls = f"{steps} model call" + ("" if steps == 1 else "s")
    return (
        f"tokens: turn {turn.total:,} (in {turn.input_tokens:,} · out {turn.output_tokens:,}"
        f"{cache}, {calls}) · session {session.total:,}"
    )


class TerminalObserver:
    """A loop observer writing to a text stream; safe to call from the turn's thread."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._lock = threading.Lock()
        self._pending_text = ""

    def __call__(self, event: Event) -> None:
        if isinstance(event, TextEvent):
            # Held back: if tool calls follow it was a remark, else it is the final answer. A
            # sub-agent's text is its caller's business (explore's answer, the review's findings).
            if event.agent.depth == 0:
                self._pending_text = event.text
        elif isinstance(event, ToolCallEvent):
            self._flush_text()
            self._write(describe_call(event.call.name, event.call.arguments))
        elif isinstance(event, ToolResultEvent):
            self._write(describe_result(event.result.content, event.result.is_error))
        elif isinstance(event, RetryEvent):
            error = event.error
            line = (
                f"{error.kind.value}: {error.message}; retrying in {event.delay:.1f} s "
                f"(attempt {event.attempt + 1})"
            )
            self._write("  … " + one_line(line, WIDTH - 4))

    def _flush_text(self) -> None:
        if self._pending_text.strip():
            self._write(self._pending_text.strip())
        self._pending_text = ""

    def _write(self, line: str) -> None:
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()
