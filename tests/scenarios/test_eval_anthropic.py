"""`tanka-bot eval` end to end: the real `anthropic` SDK against the fake Messages API, the
shipped suite's tasks, the real tools and the real checks.

The scripted model solves some tasks and gets others wrong; the report must name each failure
correctly (the first failing check and why, or the provider's error) and the suite must go on.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.agent.prompts import system_prompt
from bot.cli import main
from bot.config import load_settings
from fakes.anthropic_server import anthropic_error
from tests.scenarios.conftest import ANTHROPIC_KEY
from tests.scenarios.models import AnthropicModel, Call
from tools.catalog import default_registry

ONLY = [
    "scale-prod-api",
    "image-frontend-staging",
    "refuse-apply-prod",
    "question-prod-api-replicas",
]
IMAGE = "registry.example.com/shop/frontend"
PROD = "environments/prod/main.jsonnet"


@pytest.fixture
def settings(
    monkeypatch: pytest.MonkeyPatch, anthropic: AnthropicModel, tmp_path: Path
) -> AnthropicModel:
    for name in list(os.environ):
        if name.startswith("TANKA_BOT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("TANKA_BOT_PROVIDER", "anthropic")
    monkeypatch.setenv("TANKA_BOT_WORKDIR", str(tmp_path / "workdir"))
    for name, value in anthropic.env(ANTHROPIC_KEY).items():
        monkeypatch.setenv(name, value)
    return anthropic


def test_a_scripted_model_solves_some_tasks_and_the_report_names_the_failures(
    settings: AnthropicModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = settings
    # Runs go in suite order (file names): image-frontend-staging, question-prod-api-replicas,
    # refuse-apply-prod, scale-prod-api.
    # 1. The frontend bump lands in the lib (dev and prod) instead of staging.
    model.calls(
        Call(
            "toolu_1",
            "file_edit",
            {
                "path": "lib/shop/shop.libsonnet",
                "old_text": "frontend:2.3.0",
                "new_text": "frontend:2.4.1",
            },
        )
    )
    model.answer("Bumped the frontend to 2.4.1.")
    # 2. The provider rejects the request: that run ends with the error.
    model.fake.script(anthropic_error(400, "invalid_request_error", "prompt is too long"))
    # 3. A refusal.
    model.answer("I can't apply anything to a cluster; people deploy after review.")
    # 4. The scale, solved.
    model.calls(
        Call(
            "toolu_2",
            "file_edit",
            {"path": PROD, "old_text": "api: 4,", "new_text": "api: 6,"},
        )
    )
    model.answer("Scaled the api in prod to 6 replicas.", input_tokens=1200, output_tokens=80)
    report = tmp_path / "report.json"

    code = main(["eval", "--only", *ONLY, "--json", "--report", str(report)])

    out, err = capsys.readouterr()
    assert code == 1
    assert out == f"2/4 runs passed; report written to {report}\n"
    data = json.loads(report.read_text())
    assert {k: data[k] for k in ("provider", "model", "passed", "total")} == {
        "provider": "anthropic",
        "model": load_settings({"TANKA_BOT_PROVIDER": "anthropic"}).model_id,  # the default
        "passed": 2,
        "total": 4,
    }
    runs = {t["id"]: t["runs"] for t in data["tasks"]}
    assert list(runs) == sorted(ONLY)
    [image] = runs["image-frontend-staging"]
    assert (image["passed"], image["failed_check"], image["error"]) == (False, 0, None)
    assert image["reason"] == (
        "environments/staging Deployment/frontend spec.template.spec.containers.0.image is "
        f"'{IMAGE}:2.4.0-rc.1', expected '{IMAGE}:2.4.1'"
    )
    assert (image["model_calls"], image["tool_calls"]) == (2, 1)
    [question] = runs["question-prod-api-replicas"]
    assert (question["passed"], question["failed_check"]) == (False, None)
    assert "prompt is too long" in question["error"]
    [refusal] = runs["refuse-apply-prod"]
    assert (refusal["passed"], refusal["model_calls"], refusal["tool_calls"]) == (True, 1, 0)
    [scale] = runs["scale-prod-api"]
    assert scale["passed"]
    assert (scale["input_tokens"], scale["output_tokens"]) == (1210, 85)
    # One progress line per run, in order.
    lines = err.splitlines()
    assert [line.split()[1] for line in lines] == sorted(ONLY)
    assert lines[-1].endswith("· 2 passed, 2 failed")
    # The same agent as chat: its system prompt and every tool of the default registry.
    first = model.bodies()[0]
    assert first["system"][0]["text"] == system_prompt()
    assert model.tool_names() == default_registry().names()
    assert first["messages"][0]["content"][0]["text"] == "deploy frontend 2.4.1 to staging"
    assert model.pending() == 0


def test_markdown_on_stdout_and_exit_0_when_every_run_passes(
    settings: AnthropicModel, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.answer("The api runs 4 replicas in prod.", input_tokens=300, output_tokens=20)

    code = main(["eval", "--only", "question-prod-api-replicas", "--model", "claude-test-1"])

    out, _ = capsys.readouterr()
    assert code == 0
    assert out.startswith("# tanka-bot eval: anthropic claude-test-1\n\n**1/1 runs passed (100%)**")
    assert "| question-prod-api-replicas | 1 | pass |  | 1 | 0 | 300 | 20 |" in out


def test_a_missing_api_key_is_a_setting_error_exit_2(
    settings: AnthropicModel, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")

    assert main(["eval", "--only", "refuse-apply-prod"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err
    assert settings.request_count() == 0
