"""The agent's tanka_find_environments / tanka_show / tanka_diff through the registry."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.git import git
from tools.context import ToolContext
from tools.engine_tools.tanka_render import TOOLS
from tools.registry import ToolOutcome, ToolRegistry
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.revision import RevisionDiffer

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_diff" / "repo"
SECRET_VALUES = ("UFJPRFBBU1NXT1JE", "prod-token-value")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


def call(root: Path, name: str, **arguments: Any) -> ToolOutcome:
    base = git(root, "rev-parse", "HEAD").strip()
    trees = BaseTrees(root.parent / "base-trees")
    ctx = ToolContext(root=root, base_commit=base, differ=RevisionDiffer(trees=trees))
    return ToolRegistry(TOOLS).execute(ctx, name, arguments)


def test_names() -> None:
    assert [t.name for t in TOOLS] == ["tanka_find_environments", "tanka_show", "tanka_diff"]


def test_find_environments(checkout: Path) -> None:
    out = call(checkout, "tanka_find_environments", path=".")
    assert not out.is_error
    assert out.content.splitlines() == [
        "4 environment(s):",
        "environments/dev  namespace=dev",
        "environments/prod  namespace=prod",
        "environments/multi  name=multi/blue  namespace=blue",
        "environments/multi  name=multi/green  namespace=green",
    ]
    assert str(checkout) not in out.content


def test_find_environments_refuses_escapes_and_reports_none(checkout: Path) -> None:
    assert call(checkout, "tanka_find_environments", path="../").is_error
    out = call(checkout, "tanka_find_environments", path="lib")
    assert out.content.startswith("No Tanka environment")
    assert call(checkout, "tanka_find_environments", path="nope").is_error


def test_show_and_diff_refuse_bad_paths(checkout: Path) -> None:
    for tool in ("tanka_show", "tanka_diff"):
        assert call(checkout, tool, env_path="/etc").is_error
        assert call(checkout, tool, env_path="../x").is_error


def test_show_redacts_secrets(checkout: Path) -> None:
    out = call(checkout, "tanka_show", env_path="environments/prod")
    assert not out.is_error
    assert "kind: Secret" in out.content
    assert "password: <redacted>" in out.content
    for value in SECRET_VALUES:
        assert value not in out.content


def test_show_error_has_no_absolute_paths(checkout: Path) -> None:
    (checkout / "environments/dev/main.jsonnet").write_text("{ a: error 'boom in dev' }\n")
    out = call(checkout, "tanka_show", env_path="environments/dev")
    assert out.is_error
    assert "boom in dev" in out.content
    assert "environments/dev/main.jsonnet:1:" in out.content
    assert str(checkout) not in out.content


def test_diff_against_base_commit(checkout: Path) -> None:
    out = call(checkout, "tanka_diff", env_path="environments/prod")
    assert out.content.startswith("No differences")
    main = checkout / "environments/prod/main.jsonnet"
    text = (
        main.read_text().replace("UFJPRFBBU1NXT1JE", "TkVXVkFMVUU=").replace("'web', 3", "'web', 4")
    )
    main.write_text(text)
    out = call(checkout, "tanka_diff", env_path="environments/prod")
    assert not out.is_error
    assert "environments/prod: 0 added, 2 changed, 0 removed" in out.content
    assert "+  replicas: 4" in out.content
    assert "password: <redacted, value changed>" in out.content
    for value in (*SECRET_VALUES, "TkVXVkFMVUU="):
        assert value not in out.content
