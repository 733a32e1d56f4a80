"""The agent's tanka_eval: tk eval through the registry, Secret values never shown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tools.context import ToolContext
from tools.engine_tools.tanka_eval import TOOLS
from tools.registry import ToolOutcome, ToolRegistry

CASES = Path(__file__).parents[2] / "fixtures" / "tanka_cases"


def call(root: Path, **arguments: Any) -> ToolOutcome:
    return ToolRegistry(TOOLS).execute(ToolContext(root=root), "tanka_eval", arguments)


def test_expression_and_whole_output() -> None:
    out = call(CASES, path="object", expression="testCase")
    assert (out.is_error, out.content) == (False, '"object"\n')
    whole = call(CASES, path="static")
    assert json.loads(whole.content)["env"]["spec"]["namespace"] == "static"
    assert call(CASES, path="nope").is_error


def test_secret_values_are_hidden_even_when_read_directly(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(CASES, root)
    (root / "object" / "main.jsonnet").write_text(
        "{ s: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' },"
        " stringData: { password: 'hunter2-very-secret' } } }\n"
    )
    whole = call(root, path="object")
    direct = call(root, path="object", expression="s.stringData.password")
    assert "hunter2-very-secret" not in whole.content
    assert "hunter2-very-secret" not in direct.content
