"""Terminal rendering of turn events: compact, one line each, answer not printed twice."""

from __future__ import annotations

import io

from bot.agent.errors import AgentError, ErrorKind
from bot.agent.events import (
    DoneEvent,
    RetryEvent,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from bot.agent.messages import StopReason, ToolCall, ToolResult, Usage
from bot.chat.terminal import (
    WIDTH,
    TerminalObserver,
    describe_call,
    describe_result,
    describe_usage,
)


def test_calls_show_arguments_compactly() -> None:
    assert describe_call("file_read", {"path": "lib/x.libsonnet"}) == (
        "  → file_read path=lib/x.libsonnet"
    )
    assert describe_call("git_status", {}) == "  → git_status"
    assert describe_call("jb_install", {"path": ".", "packages": ["a", "b"]}) == (
        '  → jb_install path=. packages=["a","b"]'
    )
    long = describe_call("file_write", {"path": "a", "content": "line\n" * 200})
    assert len(long) == WIDTH
    assert long.endswith("…")
    assert "\n" not in long


def test_results_summarise_the_first_line() -> None:
    assert describe_result("[a: lines 1-42 of 42]\nx\n" + "y\n" * 40, False) == (
        "  ← ok 42 lines: [a: lines 1-42 of 42]"
    )
    assert describe_result("", False) == "  ← ok (no output)"
    assert describe_result("file_edit failed: old_text not found\nmore", True) == (
        "  ✗ file_edit failed: old_text not found more"
    )


def test_usage_line() -> None:
    turn = Usage(1200, 300, cache_read_tokens=5000)
    assert describe_usage(turn, Usage(9000, 1000), 1) == (
        "tokens: turn 6,500 (in 1,200 · out 300 · cache 5,000, 1 model call) · session 10,000"
    )


def test_observer_shows_remarks_but_not_the_final_answer() -> None:
    out = io.StringIO()
    observer = TerminalObserver(out)
    call = ToolCall("c1", "git_status", {})
    observer(UsageEvent(1, Usage(1, 1), Usage(1, 1)))
    observer(TextEvent("Let me look."))
    observer(ToolCallEvent(call))
    observer(ToolResultEvent(call, ToolResult("c1", "git_status", "clean"), 0.01))
    error = AgentError(ErrorKind.RATE_LIMIT, "overloaded", retryable=True)
    observer(RetryEvent(1, 2.0, error))
    observer(TextEvent("All done."))
    observer(DoneEvent("All done.", StopReason.COMPLETE, 2, Usage(2, 2)))
    assert out.getvalue() == (
        "Let me look.\n"
        "  → git_status\n"
        "  ← ok 1 line: clean\n"
        "  … rate_limit: overloaded; retrying in 2.0 s (attempt 2)\n"
    )
