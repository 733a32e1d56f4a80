"""`tanka-bot tk export`: tk's export_test.go sequence with its expected file sets and
manifest.json texts (copied from grafana/tanka pkg/tanka/export_test.go at commit
9cbf25174556cdd5c1471ee2bd15463a5576fef2), on a fixture written here that defines the same
environments."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.cli import main

# tk's cases run on go-jsonnet and on jrsonnet (tests/unit/tanka/conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_export"
FORMAT = "{{.metadata.namespace}}/{{.metadata.name}}"
INLINE = [
    "inline-namespace1/my-configmap.yaml",
    "inline-namespace1/my-deployment.yaml",
    "inline-namespace1/my-service.yaml",
    "inline-namespace2/my-deployment.yaml",
    "inline-namespace2/my-service.yaml",
]


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "testdata")
    monkeypatch.chdir(tmp_path / "testdata")
    return tmp_path / "testdata"


def export(out: Path, *args: str, names: tuple[str, str] = ("initial", "initial")) -> int:
    return main(
        [
            "tk", "export", str(out), *args, "--format", FORMAT,
            "--ext-code", f"deploymentName='{names[0]}-deployment'",
            "--ext-str", f"serviceName={names[1]}-service",
        ]
    )  # fmt: skip


def files(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


def manifest_json(entries: dict[str, str]) -> str:
    rows = [f'    "{k}": "{v}"' for k, v in sorted(entries.items())]
    return "{\n" + ",\n".join(rows) + "\n}"


def expected(static: str, *, inline: bool = True) -> dict[str, str]:
    entries = dict.fromkeys(INLINE, "test-export-envs/inline-envs/main.jsonnet") if inline else {}
    for kind in ("deployment", "service"):
        entries[f"static/{static}-{kind}.yaml"] = "test-export-envs/static-env/main.jsonnet"
    return entries


def test_export_environments_sequence(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert export(out, "test-export-envs", "-r") == 0
    assert files(out) == sorted([*expected("initial"), "manifest.json"])
    assert (out / "manifest.json").read_text() == manifest_json(expected("initial"))

    assert export(out, "test-export-envs", "-r") == 1
    err = capsys.readouterr().err
    assert f"output dir `{out}` not empty. Pass a different --merge-strategy to ignore this" in err

    assert export(out, "test-export-envs", "-r", "--merge-strategy", "fail-on-conflicts") == 1
    assert "already exists. Aborting" in capsys.readouterr().err

    updated = ("-r", "-l", "type=static", "--merge-strategy", "replace-envs")
    assert export(out, "test-export-envs", *updated, names=("updated", "updated")) == 0
    assert files(out) == sorted([*expected("updated"), "manifest.json"])
    assert (out / "manifest.json").read_text() == manifest_json(expected("updated"))

    deleted = ("--merge-deleted-envs", "test-export-envs/inline-envs/main.jsonnet")
    assert export(out, "test-export-envs", *updated, *deleted, names=("again", "again")) == 0
    again = expected("again", inline=False)
    assert files(out) == sorted([*again, "manifest.json"])
    assert (out / "manifest.json").read_text() == manifest_json(again)
    # 2-space indentation, as tk's test checks.
    assert "  name: again-deployment" in (out / "static/again-deployment.yaml").read_text()


def test_skip_manifest(root: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert export(out, "test-export-envs", "-r", "--skip-manifest") == 0
    assert files(out) == sorted(expected("initial"))


def test_selection_errors(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    two = ("test-export-envs/static-env", "test-export-envs/inline-envs")
    assert export(out, *two) == 1
    assert "recursive flag is required when exporting multiple environments" in (
        capsys.readouterr().err
    )
    assert export(out, "test-export-envs/inline-envs") == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("Please use --name to export a single environment")
    assert "found multiple Environments in" in captured.err
    assert export(out, "test-export-envs", "--merge-strategy", "sometimes") == 1
    assert 'invalid merge strategy: "sometimes"' in capsys.readouterr().err
    assert export(out, "test-export-envs", "-r", "-l", "type in (") == 1
    assert "Could not parse selector (-l) type in (" in capsys.readouterr().err


def test_name_target_and_extension(root: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ("test-export-envs/inline-envs", "--name", "inline-namespace2", "--extension", "yml")
    assert export(out, *args, "-t", "deployment/.*,!service/.*") == 0
    assert files(out) == ["inline-namespace2/my-deployment.yml", "manifest.json"]
    out2 = tmp_path / "out2"
    assert export(out2, "test-export-envs", "-r", "--name", "inline-namespace1") == 0
    assert files(out2) == sorted([*INLINE[:3], "manifest.json"])
