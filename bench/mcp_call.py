"""MCP tool call overhead, and the cost of starting a sub-agent. Prints figures only.

    .venv/bin/python bench/mcp_call.py

1. The same MCP server (fakes/mcp_server.py over stdio), the same tool (`shout`), in one run:
   the bare SDK call (`Client.call_tool` on an asyncio loop) against the call through the agent's
   tool layer (ToolRegistry.execute -> the MCP tool -> McpHub: the loop-thread handoff, argument
   validation, result conversion, Secret masking, truncation). Target: < 5 ms added per call.
2. A sub-agent run whose model answers at once, against the bare model call: what starting a
   sub-agent costs beyond its model calls (scope, filtered registry, turn, events, budget chain).
   Target: < 1 ms.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

from bot.agent.agent import Agent
from bot.agent.messages import Message, ModelRequest, ModelResponse, StopReason, Text, Usage
from bot.mcp.config import load_mcp_config
from bot.mcp.hub import McpHub
from bot.mcp.tools import McpTools
from tools.catalog import default_registry
from tools.context import ToolContext
from tools.registry import ToolRegistry
from tools.subagent_port import SubAgentTask

REPO = Path(__file__).resolve().parents[1]
CALLS = 300
RUNS = 500


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def bare_sdk(n: int) -> list[float]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "fakes.mcp_server"], env={"PYTHONPATH": str(REPO)}
    )
    samples = []
    async with Client(params) as client:
        await client.call_tool("shout", {"text": "warm"})
        for _ in range(n):
            started = time.perf_counter()
            await client.call_tool("shout", {"text": "hello"})
            samples.append(time.perf_counter() - started)
    return samples


def through_tools(n: int, root: Path) -> list[float]:
    config_file = root / "mcp.yaml"
    config_file.write_text(
        f"servers:\n  ops:\n    command: [{sys.executable}, -m, fakes.mcp_server]\n"
        f"    env: {{PYTHONPATH: '{REPO}'}}\n"
    )
    hub = McpHub(load_mcp_config(config_file, os.environ))
    hub.start()
    registry = ToolRegistry(sources=[McpTools(hub)])
    ctx = ToolContext(root=root)
    samples = []
    try:
        registry.execute(ctx, "mcp__ops__shout", {"text": "warm"})
        for _ in range(n):
            started = time.perf_counter()
            outcome = registry.execute(ctx, "mcp__ops__shout", {"text": "hello"})
            samples.append(time.perf_counter() - started)
            assert not outcome.is_error, outcome.content
    finally:
        hub.close()
    return samples


class Instant:
    name, model = "instant", "instant-1"
    answer = ModelResponse(Message("assistant", (Text("ok"),)), Usage(1, 1), StopReason.COMPLETE)

    def complete(self, request: ModelRequest) -> ModelResponse:
        return self.answer


def subagent_cost(root: Path) -> tuple[float, float]:
    provider = Instant()
    agent = Agent(provider, default_registry(), system_prompt="bench")
    ctx = ToolContext(root=root)
    request = ModelRequest(system="s", messages=(Message.user("q"),))
    bare, runs = [], []
    for _ in range(RUNS):
        started = time.perf_counter()
        provider.complete(request)
        bare.append(time.perf_counter() - started)
    budget = agent.new_budget()
    for _ in range(RUNS):
        scope = agent.subagents(ctx, budget=budget)
        started = time.perf_counter()
        scope.run(SubAgentTask("bench", "s", "q"))
        runs.append(time.perf_counter() - started)
        scope.close()
    return median_ms(bare), median_ms(runs)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bare = asyncio.run(bare_sdk(CALLS))
        tooled = through_tools(CALLS, root)
        b, t = median_ms(bare), median_ms(tooled)
        print(f"MCP call over stdio, median of {CALLS}: bare SDK {b:.2f} ms, through the tool "
              f"layer {t:.2f} ms, added {t - b:.2f} ms (target < 5 ms)")  # fmt: skip
        model, sub = subagent_cost(root)
        print(f"sub-agent with an instant model, median of {RUNS}: {sub:.3f} ms, of which the "
              f"model call {model:.3f} ms; start cost {sub - model:.3f} ms "
              "(target < 1 ms)")  # fmt: skip


if __name__ == "__main__":
    main()
