"""render.py: environments through evaluation, processing and YAML, as tk show and tk export."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools.tanka.errors import MultipleEnvsError, TankaError
from tools.tanka.export.run import export
from tools.tanka.pipeline.render import render_entrypoint, render_path, show

# Every test here runs on go-jsonnet and on jrsonnet (conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tanka_diff"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "repo", root)
    return root


@pytest.mark.parametrize("env", ["environments/prod", "environments/dev"])
def test_show_is_byte_identical_to_expectation(repo: Path, env: str) -> None:
    expected = (FIXTURES / "expected" / env.replace("/", "_")).with_suffix(".yaml")
    assert show(repo / env) == expected.read_text()


def test_show_redacted_hides_secret_values_only(repo: Path) -> None:
    plain = show(repo / "environments/prod")
    redacted = show(repo / "environments/prod", redact=True)
    assert "UFJPRFBBU1NXT1JE" in plain
    assert "UFJPRFBBU1NXT1JE" not in redacted
    assert "prod-token-value" not in redacted
    assert "  password: <redacted>\n" in redacted
    assert redacted.replace("<redacted>", "X").count("\n") == plain.count("\n")


def test_targets_filter(repo: Path) -> None:
    out = show(repo / "environments/prod", targets=["deployment/.*"])
    assert out.count("kind: Deployment") == 2
    assert "kind: Service" not in out


def test_inline_file_renders_every_environment(repo: Path) -> None:
    envs = render_entrypoint(repo / "environments/multi/main.jsonnet")
    assert [(e.name, e.inline) for e in envs] == [("multi/blue", True), ("multi/green", True)]
    assert envs[0].manifests[0]["metadata"] == {"name": "greeting", "namespace": "blue"}
    with pytest.raises(MultipleEnvsError):
        render_path(repo / "environments/multi")
    assert render_path(repo / "environments/multi", name="multi/green").name == "multi/green"


def test_static_entrypoint_renders_one(repo: Path) -> None:
    [env] = render_entrypoint(repo / "environments/prod/main.jsonnet")
    assert env.name == "environments/prod"
    assert [m["kind"] for m in env.manifests] == ["Secret", "Service", "Deployment", "Deployment"]


def test_export_files_and_manifest_json(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    written = export(out, [repo / "environments/prod", repo / "environments/dev"])
    names = sorted(p.relative_to(out).as_posix() for p in written)
    assert names == [
        "apps-v1.Deployment-api.yaml",
        "apps-v1.Deployment-web.yaml",
        "v1.ConfigMap-settings.yaml",
        "v1.Secret-creds.yaml",
        "v1.Service-web.yaml",
    ]
    manifest = (out / "manifest.json").read_text()
    assert not manifest.endswith("\n")
    assert json.loads(manifest)["v1.ConfigMap-settings.yaml"] == "environments/dev/main.jsonnet"
    shown = show(repo / "environments/dev")
    assert (out / "v1.ConfigMap-settings.yaml").read_text() == shown


def test_export_format_and_extension(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    export(
        out,
        [repo / "environments/dev"],
        format="{{.metadata.namespace}}/{{.kind}}",
        extension="yml",
    )
    assert (out / "dev" / "ConfigMap.yml").is_file()


def test_export_refuses_a_non_empty_dir(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "x").write_text("")
    with pytest.raises(TankaError, match="not empty"):
        export(out, [repo / "environments/dev"])
