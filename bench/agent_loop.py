"""Agent loop overhead per step, and the memory idle sessions hold. Prints figures only.

    .venv/bin/python bench/agent_loop.py

1. A turn of many steps against an instant in-process provider and a trivial tool, so the time
   measured is the loop's own: request building, the worker-thread handoff of the model call,
   budget checks, tool dispatch with argument validation, events. Target: < 5 ms per step.
2. 100 idle conversations with realistic 20-message histories (prompts, remarks, tool calls,
   file-sized tool results), measured with tracemalloc.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from pathlib import Path

from pydantic import BaseModel

from bot.agent.agent import Agent
from bot.agent.budget import Budgets
from bot.agent.conversation import Conversation
from bot.agent.events import Event
from bot.agent.messages import (
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    Text,
    ToolCall,
    ToolResult,
    Usage,
)
from tools.context import ToolContext
from tools.registry import Tool, ToolRegistry


class PingInput(BaseModel):
    value: str


def _ping(ctx: ToolContext, params: PingInput) -> str:
    return params.value


class InstantProvider:
    """Asks for one tool call per step until `steps` calls were made, then answers."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.calls = 0

    @property
    def name(self) -> str:
        return "bench"

    @property
    def model(self) -> str:
        return "instant"

    def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        if self.calls > self.steps:
            return ModelResponse(
                Message("assistant", (Text("done"),)), Usage(10, 1), StopReason.COMPLETE
            )
        call = ToolCall(f"c{self.calls}", "ping", {"value": "pong"})
        return ModelResponse(Message("assistant", (call,)), Usage(10, 1), StopReason.TOOL_USE)


def _count(event: Event) -> None:
    """A cheap observer, as a real one would be attached."""


def loop_overhead(steps: int, repeats: int) -> list[float]:
    registry = ToolRegistry([Tool("ping", "Echo a value.", PingInput, _ping)])
    ctx = ToolContext(root=Path.cwd())
    per_step = []
    for _ in range(repeats):
        provider = InstantProvider(steps)
        agent = Agent(
            provider,
            registry,
            system_prompt="bench",
            budgets=Budgets(max_steps=steps + 1, max_tokens=10**9),
        )
        started = time.perf_counter()
        result = agent.run_turn([], "go", ctx, observer=_count)
        elapsed = time.perf_counter() - started
        assert result.ok
        assert result.steps == steps + 1
        per_step.append(elapsed / result.steps * 1000)
    return per_step


def realistic_history(seed: int) -> tuple[Message, ...]:
    """20 messages: 3 requests, remarks, 8 tool rounds with file-sized results, answers."""

    def file_body(version: str) -> str:  # distinct text per result, as real reads are
        return "".join(
            f"  line {i}: local x{version} = import 'lib/k{i}.libsonnet';\n" for i in range(80)
        )

    messages: list[Message] = []
    for turn in range(3):
        messages.append(Message.user(f"Please scale env-{seed} service {turn} to 3 replicas " * 3))
        rounds = 3 if turn < 2 else 2
        for r in range(rounds):
            call = ToolCall(
                f"toolu_{seed}_{turn}_{r}",
                "file_read",
                {"path": f"environments/e{seed}/main.jsonnet"},
            )
            messages.append(
                Message("assistant", (Text("Let me read the environment first."), call))
            )
            messages.append(Message("user", (ToolResult(call.id, call.name, file_body(call.id)),)))
        messages.append(Message("assistant", (Text("Done: replicas set to 3. " * 20),)))
    return tuple(messages[:20])


def _text_bytes(message: Message) -> int:
    size = 0
    for part in message.parts:
        if isinstance(part, Text):
            size += len(part.text)
        elif isinstance(part, ToolResult):
            size += len(part.content)
    return size


def idle_sessions_memory(count: int) -> tuple[int, int, int]:
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    sessions = []
    for i in range(count):
        conversation = Conversation()
        conversation.record(realistic_history(i), Usage(50_000, 2_000))
        sessions.append(conversation)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    total = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    messages = sum(len(s.history) for s in sessions)
    text = sum(_text_bytes(m) for s in sessions for m in s.history)
    return total, messages, text


def main() -> None:
    steps, repeats = 200, 5
    loop_overhead(20, 1)  # warm up imports and caches
    per_step = loop_overhead(steps, repeats)
    print(f"agent loop overhead: {steps} steps x {repeats} turns (instant provider, trivial tool)")
    print(
        f"  per step: median {statistics.median(per_step):.3f} ms, "
        f"min {min(per_step):.3f} ms, max {max(per_step):.3f} ms (target < 5 ms)"
    )
    total, messages, text = idle_sessions_memory(100)
    print(f"idle sessions: 100 conversations, {messages} messages in all")
    print(f"  memory held: {total / 1024:.0f} KiB total, {total / 100 / 1024:.1f} KiB per session")
    structure = (total - text) / 1024
    print(f"  of which message text: {text / 1024:.0f} KiB; structure: {structure:.0f} KiB")


if __name__ == "__main__":
    main()
