"""tk export: file-name templates, files and manifest.json as tk writes them."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from tools.tanka.env.spec import Environment
from tools.tanka.errors import TankaError
from tools.tanka.export import DEFAULT_FORMAT
from tools.tanka.export.files import diff_key, file_name, write_export
from tools.tanka.export.template import TemplateError
from tools.tanka.goyaml.emit import dump_yaml

BY_NS = '{{ .metadata.namespace | default "_cluster" }}/{{.kind}}-{{.metadata.name}}'
DEPLOY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "prod"},
}
ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "reader"},
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"generateName": "job-", "labels": {"app.kubernetes.io/name": "x"}},
}
ENV = {"metadata": {"name": "environments/prod", "namespace": "environments/prod/main.jsonnet"}}


def env(name: str = "environments/prod") -> Environment:
    return Environment(name=name, metadata_namespace=f"{name}/main.jsonnet")


@pytest.mark.parametrize(
    ("manifest", "format_", "expected"),
    [
        (DEPLOY, DEFAULT_FORMAT, "apps-v1.Deployment-web"),
        (POD, DEFAULT_FORMAT, "v1.Pod-job-"),
        (DEPLOY, "{{.kind}}-{{or .metadata.name .metadata.generateName}}", "Deployment-web"),
        (DEPLOY, BY_NS, "prod/Deployment-web"),
        (ROLE, BY_NS, "_cluster/ClusterRole-reader"),
        (ROLE, "{{.metadata.namespace}}/{{.metadata.name}}", "<no value>/reader"),
        (DEPLOY, "{{.apiVersion}}/{{.kind | lower}}", "apps-v1/deployment"),
        (DEPLOY, "{{ env.metadata.name }}/{{.metadata.name}}", "environments-prod/web"),
        (POD, '{{ index .metadata.labels "app.kubernetes.io/name" }}', "x"),
        (DEPLOY, '{{ replace "web" "site" .metadata.name }}', "site"),
        (DEPLOY, "{{ .kind | snakecase }}-{{ printf_free }}", None),
        (DEPLOY, "literal", "literal"),
    ],
)  # fmt: skip
def test_file_names(manifest: dict[str, Any], format_: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(TemplateError, match='function "printf_free" not defined'):
            file_name(manifest, format_, ENV)
    else:
        assert file_name(manifest, format_, ENV) == expected


def test_export_writes_files_and_manifest_json(tmp_path: Path) -> None:
    out = tmp_path / "out"
    fmt = '{{ .metadata.namespace | default "_cluster" }}/{{.kind}}-{{.metadata.name}}'
    files = write_export(out, [(env(), [DEPLOY, ROLE]), (env("environments/dev"), [])], format=fmt)
    assert [p.relative_to(out).as_posix() for p in files] == [
        "prod/Deployment-web.yaml",
        "_cluster/ClusterRole-reader.yaml",
    ]
    assert (out / "prod" / "Deployment-web.yaml").read_text(encoding="utf-8") == dump_yaml(DEPLOY)
    assert stat.S_IMODE((out / "prod").stat().st_mode) == 0o700
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o644
    assert (out / "manifest.json").read_text(encoding="utf-8") == (
        "{\n"
        '    "_cluster/ClusterRole-reader.yaml": "environments/prod/main.jsonnet",\n'
        '    "prod/Deployment-web.yaml": "environments/prod/main.jsonnet"\n'
        "}"
    )


def test_name_collision_aborts(tmp_path: Path) -> None:
    twin = {**DEPLOY, "apiVersion": "extensions/v1beta1"}
    with pytest.raises(
        TankaError, match=r"^file '.*Deployment-web\.yaml' already exists\. Aborting$"
    ):
        write_export(
            tmp_path / "o", [(env(), [DEPLOY, twin])], format="{{.kind}}-{{.metadata.name}}"
        )


def test_non_empty_output_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("x", encoding="utf-8")
    with pytest.raises(
        TankaError, match=r"not empty\. Pass a different --merge-strategy to ignore this"
    ):
        write_export(tmp_path, [(env(), [DEPLOY])])


def test_skip_manifest_and_extension(tmp_path: Path) -> None:
    files = write_export(
        tmp_path / "o", [(env(), [DEPLOY])], extension="golden", skip_manifest=True
    )
    assert [p.name for p in files] == ["apps-v1.Deployment-web.golden"]
    assert not (tmp_path / "o" / "manifest.json").exists()


@pytest.mark.parametrize("bad", ["{{ .kind ", "{{ (.kind }}", "{{ @ }}"])
def test_bad_templates_fail_clearly(bad: str) -> None:
    with pytest.raises(TemplateError):
        file_name(DEPLOY, bad, ENV)


def test_diff_key() -> None:
    assert diff_key(DEPLOY) == ("apps/v1", "Deployment", "prod", "web")
    assert diff_key(POD) == ("v1", "Pod", "", "job-")
    assert diff_key({"kind": "X"}) == ("", "X", "", "")
