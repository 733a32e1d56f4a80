"""The agent's tanka_check through the registry, as the model calls it, on a real checkout."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tools.catalog import default_registry
from tools.context import ToolContext
from tools.engine_tools.tanka_check import TOOLS
from tools.registry import ToolOutcome, ToolRegistry

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_check" / "repo"
SECRET_VALUES = ("c3VwZXJzZWNyZXQ=", "supersecret", "aHVudGVyMg==", "hunter2")


def git(repo: Path, *args: str) -> str:
    ident = ["-c", "user.name=t", "-c", "user.email=t@t"]
    out = subprocess.run(["git", *ident, *args], cwd=repo, check=True, capture_output=True)
    return out.stdout.decode()


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


def call(root: Path, ctx: ToolContext | None = None, **arguments: Any) -> ToolOutcome:
    context = ctx or ToolContext(root=root, base_commit=git(root, "rev-parse", "HEAD").strip())
    return ToolRegistry(TOOLS).execute(context, "tanka_check", arguments)


def test_registered_with_the_contract_parameter() -> None:
    specs = {spec.name: spec.input_schema for spec in default_registry().specs()}
    assert specs["tanka_check"]["properties"]["env_path"]["type"] == "string"
    assert "required" not in specs["tanka_check"]


def test_findings_for_one_environment_and_the_fix_it_asks_for(checkout: Path) -> None:
    outcome = call(checkout, env_path="environments/bad")
    assert not outcome.is_error
    lines = outcome.content.splitlines()
    assert lines[0] == (
        "checks: 1 of 5 objects valid, 1 unchecked kind, 6 schema errors, 2 denied, 1 warning"
    )
    assert (
        "error: environments/bad: Deployment/bad/web spec.template.spec.containers[0]"
        ".imagePullPolice: unknown field; did you mean 'imagePullPolicy'? [schema]"
    ) in lines
    assert lines[-1].startswith("Fix these errors (schema errors and denied policies)")
    for value in SECRET_VALUES:
        assert value not in outcome.content
    assert str(checkout) not in outcome.content


def test_clean_environment(checkout: Path) -> None:
    outcome = call(checkout, env_path="environments/good")
    assert outcome.content == (
        "checks: 4 objects valid, 0 unchecked kinds, 0 schema errors, 0 denied, 0 warnings\n"
    )


def test_without_env_path_the_affected_environments(checkout: Path) -> None:
    nothing = call(checkout)
    assert nothing.content.startswith("No environment is affected by your changes yet")
    spec = checkout / "environments" / "prod" / "main.jsonnet"
    spec.write_text(spec.read_text().replace("replicas=1", "replicas=3"))
    outcome = call(checkout)
    assert outcome.content == (
        "checks: 1 object valid, 0 unchecked kinds, 0 schema errors, 0 denied, 0 warnings\n"
    )


def test_settings_come_from_the_context(checkout: Path) -> None:
    (checkout / "rules").mkdir()
    (checkout / "rules" / "deny.rego").write_text('package main\ndeny contains "no" if true\n')
    ctx = ToolContext(root=checkout, policy_dir="rules", kubernetes_version="1.30")
    outcome = call(checkout, ctx, env_path="environments/prod")
    assert outcome.content.splitlines()[1] == (
        "error: environments/prod: Deployment/prod/web: no [policy:main.deny]"
    )


def test_errors_the_model_can_act_on(checkout: Path) -> None:
    outside = call(checkout, env_path="../elsewhere")
    assert outside.is_error
    missing = call(checkout, env_path="environments/none")
    assert missing.content == (
        "tanka_check failed: environments/none does not exist; use tanka_find_environments to "
        "list them"
    )
    (checkout / "policy" / "broken.rego").write_text("package main\ndeny contains x if {\n")
    broken = call(checkout, env_path="environments/good")
    assert broken.is_error
    assert broken.content.startswith(
        "tanka_check failed: the check cannot run: policy/broken.rego:"
    )
