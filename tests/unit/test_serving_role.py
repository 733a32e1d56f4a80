"""The serving process of a split bot (Redis: turns run in the work process) builds no agent: it
loads neither the agent, nor a model SDK, nor the tools (nor the Tanka checks and linter they
bring), while its work process loads them all.

Each case builds in a fresh interpreter, against the Slack simulator and a real Redis, and
reports what it loaded: sys.modules of the test process holds every module some other test
imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app import build_serving
from bot.config import ConfigError, load_settings
from tests.redis_server import RedisServer

ROOT = Path(__file__).parents[2]
# What only a process that runs turns needs: the agent loop, each provider's SDK, the tool
# catalog and its tools, the turn's handler and the checks a proposal runs.
TURNS_ONLY = (
    "bot.agent.agent", "bot.agent.review", "bot.handlers.turn", "anthropic", "google.genai",
    "openai", "tools.catalog", "tools.files", "tools.github", "tools.engine_tools",
    "tools.tanka.check", "tools.tanka.source.lint",
)  # fmt: skip
BUILD = """
import json, sys
from bot.app import build_service, build_serving
from bot.config import load_settings
from fakes.slack_server import SlackServer

with SlackServer() as slack:
    settings = load_settings({
        "SLACK_BOT_TOKEN": slack.bot_token, "SLACK_SIGNING_SECRET": "role-test",
        "TANKA_BOT_SLACK_API_URL": slack.api_url, "TANKA_BOT_REPO_URL": "/nowhere/origin.git",
        "ANTHROPIC_API_KEY": "role-test-key", "TANKA_BOT_WORKDIR": sys.argv[2],
        "GITHUB_TOKEN": "role-test-github", "TANKA_BOT_GITHUB_REPO": "acme/infra",
        "REDIS_URL": sys.argv[3],
    })
    if sys.argv[1] == "serving":  # as `serve` builds it
        service, worker = build_serving(settings, socket_mode=False)
        assert worker is not None and service.svc.agent is None
    else:  # as the work process builds it (bot.app.start_work), its jobs not started
        service = build_service(settings)
        assert service.svc.agent is not None
    print(json.dumps(sorted(sys.modules)))
    service.svc.store.close()
"""


def loaded(role: str, workdir: Path, redis_url: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", BUILD, role, str(workdir), redis_url],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return set(modules)


def turn_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == t or m.startswith(t + ".") for t in TURNS_ONLY))


def test_the_serving_process_loads_no_agent_model_sdk_or_tool(
    tmp_path: Path, shared_redis: RedisServer
) -> None:
    assert turn_modules(loaded("serving", tmp_path / "serving", shared_redis.url)) == []
    working = turn_modules(loaded("turns", tmp_path / "work", shared_redis.url))
    # The configured provider's SDK (Anthropic's), the agent and its tools (the turn's handler
    # loads with the first turn).
    for module in ("bot.agent.agent", "anthropic", "tools.catalog", "tools.files",
                   "tools.tanka.check"):  # fmt: skip
        assert module in working


def test_its_provider_settings_are_still_checked(tmp_path: Path) -> None:
    settings = load_settings({"TANKA_BOT_PROVIDER": "anthropic", "SLACK_BOT_TOKEN": "xoxb-role",
                              "SLACK_SIGNING_SECRET": "role-test", "REDIS_URL": "redis://x:1",
                              "TANKA_BOT_REPO_URL": "/nowhere/origin.git",
                              "TANKA_BOT_WORKDIR": str(tmp_path)})  # fmt: skip
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        build_serving(settings, socket_mode=False)
