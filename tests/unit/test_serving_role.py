"""The serving process of a split bot (Redis: turns run in the work process) loads no model SDK.

Each case builds the service in a fresh interpreter, against the Slack simulator, and reports
what it loaded: sys.modules of the test process holds every SDK some other test imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.compose import NoModelHere
from bot.config import ConfigError, load_settings

ROOT = Path(__file__).parents[2]
BUILD = """
import json, sys
from bot.app import build_service
from bot.config import load_settings
from fakes.slack_server import SlackServer

with SlackServer() as slack:
    settings = load_settings({
        "SLACK_BOT_TOKEN": slack.bot_token, "SLACK_SIGNING_SECRET": "role-test",
        "TANKA_BOT_SLACK_API_URL": slack.api_url, "TANKA_BOT_REPO_URL": "/nowhere/origin.git",
        "ANTHROPIC_API_KEY": "role-test-key", "TANKA_BOT_WORKDIR": sys.argv[2],
        "GITHUB_TOKEN": "role-test-github", "TANKA_BOT_GITHUB_REPO": "acme/infra",
    })
    service = build_service(settings, turns=sys.argv[1] == "turns")
    provider = service.svc.agent.provider
    print(json.dumps({"sdk": "anthropic" in sys.modules, "provider": provider.name,
                      "model": provider.model, "kind": type(provider).__name__}))
"""


def built(role: str, workdir: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", BUILD, role, str(workdir)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_serving_process_loads_no_model_sdk(tmp_path: Path) -> None:
    serving = built("serving", tmp_path / "serving")
    assert serving["sdk"] is False
    assert serving["kind"] == "NoModelHere"
    working = built("turns", tmp_path / "work")  # the work process: the real provider
    assert working["sdk"] is True
    assert working["kind"] == "AnthropicProvider"
    assert (serving["provider"], serving["model"]) == (working["provider"], working["model"])


def test_its_settings_are_still_checked_and_it_never_calls_the_model() -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        NoModelHere(load_settings({"TANKA_BOT_PROVIDER": "anthropic"}))
    provider = NoModelHere(load_settings({"ANTHROPIC_API_KEY": "role-test-key"}))
    with pytest.raises(RuntimeError, match="runs no turns"):
        provider.complete(None)  # type: ignore[arg-type]
