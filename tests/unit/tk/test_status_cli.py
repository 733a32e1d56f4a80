"""`tanka-bot tk status`: tk status's text (cmd/tk/status.go of grafana/tanka at commit
9cbf25174556cdd5c1471ee2bd15463a5576fef2) without its two cluster lines. tk has no test of this
output; the expected text follows its code: spec fields by Go name, sorted, values in fmt's %v
form, then a tabwriter table (padding 4) of the resources in tk's order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main


def test_status_prints_spec_and_resources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = tmp_path / "environments" / "prod"
    env.mkdir(parents=True)
    (tmp_path / "jsonnetfile.json").write_text("{}")
    spec = {
        "apiVersion": "tanka.dev/v1alpha1",
        "kind": "Environment",
        "metadata": {"name": "environments/prod"},
        "spec": {
            "apiServer": "https://cluster.example",
            "contextNames": ["one", "two"],
            "namespace": "apps",
            "injectLabels": True,
            "resourceDefaults": {"labels": {"team": "x", "app": "y"}},
            "expectVersions": {"tanka": ">= 0.20"},
        },
    }
    (env / "spec.json").write_text(json.dumps(spec))
    (env / "main.jsonnet").write_text(
        "{ d: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } },\n"
        "  n: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'long-namespace-name' } },\n"
        "  s: { apiVersion: 'v1', kind: 'Service',\n"
        "       metadata: { name: 'web', namespace: 'other' } } }\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["tk", "status", "environments/prod"]) == 0
    assert capsys.readouterr().out == (
        "Environment:\n"
        "  APIServer: https://cluster.example\n"
        "  ApplyStrategy: \n"
        "  ContextNames: [one two]\n"
        "  DiffStrategy: \n"
        "  ExpectVersions: map[Tanka:>= 0.20]\n"
        "  ExportJsonnetImplementation: \n"
        "  InjectLabels: true\n"
        "  Namespace: apps\n"
        "  ResourceDefaults: map[Annotations:map[] Labels:map[app:y team:x]]\n"
        "  TankaEnvLabelFromFields: []\n"
        "Resources:\n"
        "  NAMESPACE    OBJECTSPEC\n"
        "               Namespace/long-namespace-name\n"
        "  other        Service/web\n"
        "  apps         Deployment/web\n"
    )


def test_status_of_a_missing_path_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["tk", "status", "nowhere"]) == 1
    assert "nowhere" in capsys.readouterr().err
