"""The hub and MCP tools against real MCP servers (fakes/mcp_server.py, the real SDK):
stdio and streamable HTTP, the read-only default, the allowlist, the scrubbed environment,
crash and restart, timeout, garbage output, huge output, unknown tools, a missing command."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.types import Tool as McpTool

from bot.inbound.http import Readiness
from bot.mcp.config import McpConfig, load_mcp_config
from bot.mcp.hub import McpFault, McpHub
from bot.mcp.tools import McpTools, make_tool
from fakes.mcp_server import HttpMcpServer
from tools.context import ToolContext
from tools.redaction import SecretMask
from tools.registry import ToolRegistry

REPO = Path(__file__).resolve().parents[3]
BOT_SECRET = "dummy-anthropic-bot-own-key-0123456789"


def config(tmp_path: Path, url: str, environ: dict[str, str]) -> McpConfig:
    python = sys.executable
    text = f"""
servers:
  ops:
    command: [{python}, -m, fakes.mcp_server]
    env: {{PYTHONPATH: "{REPO}", OPS_TOKEN: "${{OPS_TOKEN}}"}}
    timeout: 10
  allow:
    command: [{python}, -m, fakes.mcp_server]
    env: {{PYTHONPATH: "{REPO}"}}
    tools: [silence, firing_alerts]
  slow:
    command: [{python}, -m, fakes.mcp_server]
    env: {{PYTHONPATH: "{REPO}"}}
    timeout: 1.5
  web:
    url: {url}
    headers: {{Authorization: "Bearer ${{OPS_TOKEN}}"}}
  locked:
    url: {url}
    headers: {{Authorization: "Bearer wrong"}}
    timeout: 3
  missing:
    command: [no-such-mcp-server-binary, --stdio]
"""
    path = tmp_path / "mcp.yaml"
    path.write_text(text)
    return load_mcp_config(path, environ)


class Calls:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def __call__(self, server: str, outcome: str, seconds: float) -> None:
        with self.lock:
            self.seen.append((server, outcome))


@pytest.fixture(scope="module")
def http_server() -> Iterator[HttpMcpServer]:
    server = HttpMcpServer(token="tok-123").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def calls() -> Calls:
    return Calls()


@pytest.fixture(scope="module")
def hub(
    tmp_path_factory: pytest.TempPathFactory, http_server: HttpMcpServer, calls: Calls
) -> Iterator[McpHub]:
    environ = {**os.environ, "OPS_TOKEN": "tok-123", "ANTHROPIC_API_KEY": BOT_SECRET}
    hub = McpHub(config(tmp_path_factory.mktemp("mcp"), http_server.url, environ), on_call=calls)
    hub.start()
    yield hub
    hub.close()


@pytest.fixture
def registry(hub: McpHub) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_source(McpTools(hub))
    return registry


def ctx(tmp_path: Path, mask: SecretMask | None = None) -> ToolContext:
    return ToolContext(root=tmp_path, secret_mask=mask or SecretMask())


READ_ONLY = ["firing_alerts", "environment", "huge", "shout", "crash", "hang", "garbage"]


def test_read_only_tools_are_offered_by_default_and_the_allowlist_opts_in(
    registry: ToolRegistry,
) -> None:
    names = registry.names()
    assert [n for n in names if n.startswith("mcp__ops__")] == [f"mcp__ops__{t}" for t in READ_ONLY]
    assert "mcp__ops__silence" not in names  # not annotated readOnlyHint
    assert [n for n in names if n.startswith("mcp__allow__")] == [
        "mcp__allow__firing_alerts",
        "mcp__allow__silence",
    ]
    assert [n for n in names if n.startswith("mcp__web__")] == [f"mcp__web__{t}" for t in READ_ONLY]
    spec = next(s for s in registry.specs() if s.name == "mcp__ops__firing_alerts")
    assert spec.description == "[MCP server ops] The alerts firing now, one per line."
    assert spec.input_schema["properties"]["severity"]["type"] == "string"
    tools = registry.tools()
    assert tools["mcp__ops__firing_alerts"].read_only
    assert not tools["mcp__allow__silence"].read_only


def test_stdio_and_http_calls_return_the_tools_text(
    registry: ToolRegistry, tmp_path: Path, calls: Calls
) -> None:
    for server in ("ops", "web"):
        outcome = registry.execute(
            ctx(tmp_path), f"mcp__{server}__firing_alerts", {"severity": "warning"}
        )
        assert not outcome.is_error, outcome.content
        assert outcome.content.splitlines()[0] == "HighErrorRate app=checkout severity=warning"
    assert ("web", "ok") in calls.seen
    silenced = registry.execute(ctx(tmp_path), "mcp__allow__silence", {"alert": "DiskFull"})
    assert silenced.content == "silenced DiskFull"


def test_a_stdio_server_gets_only_its_env_plus_path_home_lang(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    outcome = registry.execute(ctx(tmp_path), "mcp__ops__environment", {})
    env = json.loads(outcome.content)
    # LC_CTYPE may be set by the server's own Python (PEP 538 locale coercion).
    assert set(env) - {"LC_CTYPE"} <= {"PYTHONPATH", "OPS_TOKEN", "PATH", "HOME", "LANG"}
    assert {"PYTHONPATH", "OPS_TOKEN", "PATH"} <= set(env)
    assert env["OPS_TOKEN"] == "tok-123"
    assert BOT_SECRET not in outcome.content


def test_results_are_truncated_and_masked_like_every_tool(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    huge = registry.execute(ctx(tmp_path), "mcp__ops__huge", {"kilobytes": 200})
    assert huge.content.startswith("BEGIN\n")
    assert huge.content.endswith("END")
    assert "bytes dropped from the middle of this output" in huge.content
    assert len(huge.content) < 40_000
    mask = SecretMask(["hunter2-password-value"])
    shouted = registry.execute(
        ctx(tmp_path, mask), "mcp__ops__shout", {"text": "pw=hunter2-password-value"}
    )
    assert "hunter2-password-value" not in shouted.content


def test_an_unknown_tool_is_an_error_naming_the_server(hub: McpHub, tmp_path: Path) -> None:
    listing = next(li for li in hub.listings() if li.server.name == "ops")
    ghost = McpTool(name="nope", input_schema={"type": "object"})
    outcome = make_tool(hub, listing.server, ghost).invoke(ctx(tmp_path), {})
    assert outcome.is_error
    assert outcome.content.startswith(
        "mcp__ops__nope failed: MCP server ops: nope reported an error"
    )
    unknown = ToolRegistry(sources=[McpTools(hub)]).execute(ctx(tmp_path), "mcp__ops__nope", {})
    assert unknown.is_error
    assert "unknown tool 'mcp__ops__nope'" in unknown.content


def test_a_crashed_server_is_a_tool_error_and_restarts_on_the_next_call(
    registry: ToolRegistry, hub: McpHub, tmp_path: Path, calls: Calls
) -> None:
    crashed = registry.execute(ctx(tmp_path), "mcp__ops__crash", {})
    assert crashed.is_error
    assert "MCP server ops: the call failed" in crashed.content
    assert "restarted on the next call" in crashed.content
    assert "ops" in hub.problems()
    again = registry.execute(ctx(tmp_path), "mcp__ops__firing_alerts", {})
    assert not again.is_error, again.content
    assert "ops" not in hub.problems()
    assert ("ops", "failed") in calls.seen


def test_a_server_that_does_not_answer_times_out_and_restarts(
    registry: ToolRegistry, hub: McpHub, tmp_path: Path
) -> None:
    hung = registry.execute(ctx(tmp_path), "mcp__slow__hang", {})
    assert hung.is_error
    assert "MCP server slow: no answer within 1.5 s; it is restarted on the next call" in (
        hung.content
    )
    readiness = Readiness.__new__(Readiness)
    readiness.degraded = hub.problems
    readiness.worker = None  # the turns run in this process
    assert "degraded: MCP server slow: no answer within 1.5 s" in readiness.notes()
    assert not registry.execute(ctx(tmp_path), "mcp__slow__firing_alerts", {}).is_error


def test_garbage_on_stdout_is_a_tool_error_and_the_server_restarts(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    garbled = registry.execute(ctx(tmp_path), "mcp__slow__garbage", {})
    assert garbled.is_error
    assert garbled.content.startswith("mcp__slow__garbage failed: MCP server slow:")
    assert not registry.execute(ctx(tmp_path), "mcp__slow__shout", {"text": "hi"}).is_error


def test_a_missing_command_or_refused_token_names_the_server(hub: McpHub) -> None:
    problems = hub.problems()
    assert problems["missing"] == (
        "MCP server missing: cannot start: command 'no-such-mcp-server-binary' not found on PATH"
    )
    assert problems["locked"].startswith("MCP server locked: cannot start:")
    assert {li.server.name for li in hub.listings()} >= {"ops", "allow", "slow", "web"}
    assert "missing" not in {li.server.name for li in hub.listings()}
    with pytest.raises(McpFault, match="MCP server missing: cannot start"):
        hub.call("missing", "x", {})


def test_a_cancelled_turn_stops_waiting_for_the_server(hub: McpHub) -> None:
    with pytest.raises(McpFault, match="MCP server ops: call cancelled"):
        hub.call("ops", "hang", {"seconds": 30}, cancelled=lambda: True)
