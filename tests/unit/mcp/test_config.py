"""TANKA_BOT_MCP_CONFIG: validated at start-up, every problem named by its key; names for models."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings
from bot.mcp.config import McpConfigError, load_mcp_config
from bot.mcp.naming import MAX_NAME, tool_name

GOOD = """
servers:
  ops:
    command: [mcp-ops, --stdio]
    env: {OPS_URL: "http://ops", OPS_TOKEN: "${OPS_TOKEN}"}
    tools: [firing_alerts]
    timeout: 5
  dash:
    url: https://dash.example/mcp
    headers: {Authorization: "Bearer ${OPS_TOKEN}"}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mcp.yaml"
    path.write_text(text)
    return path


def test_a_valid_file_is_expanded_and_keeps_its_secrets(tmp_path: Path) -> None:
    environ = {"OPS_TOKEN": "s3cr3t-token", "PATH": "/usr/bin", "HOME": "/home/bot", "X": "1"}
    config = load_mcp_config(write(tmp_path, GOOD), environ)

    ops, dash = config.servers
    assert ops.transport == "stdio"
    assert ops.command == ("mcp-ops", "--stdio")
    assert ops.tools == ("firing_alerts",)
    assert ops.timeout == 5
    env = {k: v.get_secret_value() for k, v in ops.env.items()}
    # Only what `env` names, plus PATH, HOME and LANG when the bot has them.
    assert env == {
        "OPS_URL": "http://ops",
        "OPS_TOKEN": "s3cr3t-token",
        "PATH": "/usr/bin",
        "HOME": "/home/bot",
    }
    assert dash.transport == "http"
    assert dash.headers["Authorization"].get_secret_value() == "Bearer s3cr3t-token"
    assert dash.tools is None
    assert dash.timeout == 30
    assert "s3cr3t" not in repr(config)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("servers:\n  ops: {}\n", "servers.ops: set exactly one of command (stdio) and url"),
        (
            "servers:\n  ops: {command: [a], url: 'http://x'}\n",
            "servers.ops: set exactly one of command",
        ),
        ("servers:\n  Ops!: {command: [a]}\n", "servers.Ops!: a server name may hold only"),
        ("servers:\n  ops: {command: []}\n", "servers.ops.command: must be a non-empty list"),
        ("servers:\n  ops: {url: 'ftp://x'}\n", "servers.ops.url: must be an http(s) URL"),
        ("servers:\n  ops: {command: [a], timeout: 0}\n", "servers.ops.timeout: Input should be"),
        ("servers:\n  ops: {command: [a], tool: [x]}\n", "servers.ops.tool: Extra inputs"),
        (
            "servers:\n  ops: {command: [a], headers: {A: b}}\n",
            "servers.ops.headers: only for url servers",
        ),
        (
            "servers:\n  ops: {command: [a], env: {T: '${NOPE}'}}\n",
            "servers.ops.env.T: uses ${NOPE}, which the bot's environment does not set",
        ),
        ("servers: []\n", "servers: must map each server's name"),
        ("other: 1\n", "the file must hold one key, servers"),
        ("servers: {ops: [\n", "is not valid YAML"),
    ],
)
def test_each_problem_names_its_key(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(McpConfigError) as caught:
        load_mcp_config(write(tmp_path, text), {})
    assert any(problem in p for p in caught.value.problems), caught.value.problems


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    text = "servers:\n  a: {command: []}\n  b: {url: 'x'}\n  c: {command: [x], env: {T: '${N}'}}\n"
    with pytest.raises(McpConfigError) as caught:
        load_mcp_config(write(tmp_path, text), {})
    assert [p.split(":")[0] for p in caught.value.problems] == [
        "servers.a.command",
        "servers.b.url",
        "servers.c.env.T",
    ]


def test_start_up_stops_with_one_message_naming_the_setting_and_key(tmp_path: Path) -> None:
    path = write(tmp_path, "servers:\n  ops: {command: [a], env: {T: '${MISSING_TOKEN}'}}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings({"TANKA_BOT_MCP_CONFIG": str(path)})
    assert caught.value.problems == [
        "TANKA_BOT_MCP_CONFIG: servers.ops.env.T: uses ${MISSING_TOKEN}, which the bot's "
        "environment does not set; set it or remove the reference"
    ]
    with pytest.raises(ConfigError, match="TANKA_BOT_MCP_CONFIG: cannot read"):
        load_settings({"TANKA_BOT_MCP_CONFIG": str(tmp_path / "absent.yaml")})


def test_settings_carry_the_parsed_servers_and_the_review_switch(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    settings = load_settings({"TANKA_BOT_MCP_CONFIG": str(path), "OPS_TOKEN": "t"})
    assert settings.mcp is not None
    assert [s.name for s in settings.mcp.servers] == ["ops", "dash"]
    assert settings.review is True
    assert load_settings({"TANKA_BOT_REVIEW": "false"}).review is False
    assert load_settings({}).mcp is None


def test_tool_names_fit_every_provider_and_stay_apart() -> None:
    assert tool_name("ops", "firing_alerts") == "mcp__ops__firing_alerts"
    dotted, slashed = tool_name("ops", "alerts.list"), tool_name("ops", "alerts/list")
    assert dotted.startswith("mcp__ops__alerts_list_")
    assert dotted != slashed
    long = tool_name("observability", "x" * 80)
    assert len(long) == MAX_NAME
    assert long == tool_name("observability", "x" * 80)  # deterministic
    assert long != tool_name("observability", "x" * 81)
    assert all(c.isalnum() or c in "_-" for c in long)
