"""The agent's Tanka tools through the registry, as the model calls them, on a real checkout."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tools.context import ToolContext
from tools.engine_tools.tanka import TOOLS
from tools.registry import ToolOutcome, ToolRegistry

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tanka_tools"
MESSY = (FIXTURES / "fmt" / "messy.jsonnet").read_text()
GOLDEN = (FIXTURES / "fmt" / "messy.fmt.golden").read_text()


@pytest.fixture(autouse=True)
def _no_jsonnet_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURES / "repo", root)
    shutil.copytree(FIXTURES / "lint" / "environments" / "broken", root / "environments" / "broken")
    (root / "lib" / "messy.libsonnet").write_text(MESSY)
    (tmp_path / "outside.jsonnet").write_text("{}\n")
    (root / "escape.jsonnet").symlink_to(tmp_path / "outside.jsonnet")
    (root / ".git").mkdir()
    (root / ".git" / "config.jsonnet").write_text("{}\n")
    return root


def call(root: Path, name: str, **arguments: Any) -> ToolOutcome:
    return ToolRegistry(TOOLS).execute(ToolContext(root=root), name, arguments)


def test_names_and_parameters_follow_the_contract() -> None:
    specs = {spec.name: spec.input_schema for spec in ToolRegistry(TOOLS).specs()}
    assert set(specs) == {"tanka_validate_jsonnet", "tanka_format_jsonnet", "tanka_importers"}
    assert specs["tanka_validate_jsonnet"]["required"] == ["file_path"]
    assert specs["tanka_format_jsonnet"]["required"] == ["file_path"]
    assert specs["tanka_importers"]["required"] == ["paths"]
    assert specs["tanka_importers"]["properties"]["paths"]["type"] == "array"


def test_validate_says_valid_or_lists_located_problems(checkout: Path) -> None:
    ok = call(checkout, "tanka_validate_jsonnet", file_path="environments/alpha/main.jsonnet")
    assert (ok.is_error, ok.content) == (False, "✓ valid")
    bad = call(checkout, "tanka_validate_jsonnet", file_path="environments/broken/main.jsonnet")
    assert bad.content == (
        "environments/broken/main.jsonnet:3:3: error: Expected a comma before next field"
    )


def test_validate_a_missing_file_is_a_clear_error(checkout: Path) -> None:
    outcome = call(checkout, "tanka_validate_jsonnet", file_path="lib/nope.libsonnet")
    assert outcome.is_error
    assert "does not exist" in outcome.content


def test_format_returns_content_and_leaves_the_file_alone(checkout: Path) -> None:
    outcome = call(checkout, "tanka_format_jsonnet", file_path="lib/messy.libsonnet")
    assert not outcome.is_error
    header, body = outcome.content.split("\n", 1)
    assert "lib/messy.libsonnet" in header
    assert "NOT changed" in header
    assert body == GOLDEN
    assert (checkout / "lib" / "messy.libsonnet").read_text() == MESSY


def test_format_says_when_a_file_is_already_formatted(checkout: Path) -> None:
    outcome = call(checkout, "tanka_format_jsonnet", file_path="lib/k.libsonnet")
    assert outcome.content == "lib/k.libsonnet is already formatted; nothing to change."


def test_format_reports_syntax_errors_with_position(checkout: Path) -> None:
    outcome = call(checkout, "tanka_format_jsonnet", file_path="environments/broken/main.jsonnet")
    assert outcome.is_error
    assert "environments/broken/main.jsonnet:3:3" in outcome.content


def test_importers_lists_environment_directories(checkout: Path) -> None:
    outcome = call(checkout, "tanka_importers", paths=["vendor/github.com/acme/k8s/gen.libsonnet"])
    assert outcome.content == "2 environment(s) affected:\nenvironments/alpha\nenvironments/gamma"


def test_importers_understands_deleted_files(checkout: Path) -> None:
    (checkout / "environments" / "alpha" / "config.libsonnet").unlink()
    shutil.rmtree(checkout / "environments" / "cycle")
    for given in (
        "environments/alpha/config.libsonnet",
        "deleted:environments/alpha/config.libsonnet",
    ):
        outcome = call(checkout, "tanka_importers", paths=[given])
        assert outcome.content.splitlines()[1:] == ["environments/alpha", "environments/beta"]
    gone = call(checkout, "tanka_importers", paths=["environments/cycle/main.jsonnet"])
    assert gone.content.endswith("environments/cycle (its main.jsonnet was deleted)")


def test_importers_with_no_affected_environment(checkout: Path) -> None:
    outcome = call(checkout, "tanka_importers", paths=["lib/unused.libsonnet"])
    assert outcome.content == "No environment is affected by these files."


def test_importers_needs_at_least_one_file(checkout: Path) -> None:
    outcome = call(checkout, "tanka_importers", paths=[])
    assert outcome.is_error
    assert "paths" in outcome.content


@pytest.mark.parametrize(
    ("tool", "argument"),
    [
        ("tanka_validate_jsonnet", "file_path"),
        ("tanka_format_jsonnet", "file_path"),
        ("tanka_importers", "paths"),
    ],
)
@pytest.mark.parametrize(
    "escape", ["../outside.jsonnet", "/etc/hostname", "escape.jsonnet", ".git/config.jsonnet"]
)
def test_every_tool_refuses_paths_leaving_the_checkout(
    checkout: Path, tool: str, argument: str, escape: str
) -> None:
    value: Any = [escape] if argument == "paths" else escape
    outcome = call(checkout, tool, **{argument: value})
    assert outcome.is_error
    assert "refused" in outcome.content
    assert str(checkout.parent) not in outcome.content.replace(escape, "")
