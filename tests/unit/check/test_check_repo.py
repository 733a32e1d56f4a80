"""check_environments on a real repository: rendered as tk show renders it, every finding exact."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools.tanka.check import (
    CheckOptions,
    CheckReport,
    CheckSetupError,
    PolicyError,
    SchemaSettingError,
    check_environments,
)
from tools.tanka.check import run as check_run
from tools.tanka.env.loader import EvalSettings
from tools.tanka.pipeline.render import render_entrypoint

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_check" / "repo"
# The fixture's Secret values, as written and decoded: none may appear in any output.
SECRET_VALUES = ("c3VwZXJzZWNyZXQ=", "supersecret", "aHVudGVyMg==", "hunter2")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("check") / "repo"
    shutil.copytree(FIXTURE, root)
    return root


@pytest.fixture(scope="module")
def bad(repo: Path) -> CheckReport:
    return check_environments(repo, ["environments/bad"])


def test_a_valid_environment_is_clean(repo: Path) -> None:
    report = check_environments(repo, ["environments/good"])
    assert report.findings == []
    assert report.exit_code == 0
    assert report.summary() == (
        "checks: 4 objects valid, 0 unchecked kinds, 0 schema errors, 0 denied, 0 warnings"
    )
    assert report.policies == ["policy/deployment.rego", "policy/main.rego"]


def test_every_finding_of_the_invalid_environment(bad: CheckReport) -> None:
    assert bad.text() == (
        "checks: 1 of 5 objects valid, 1 unchecked kind, 6 schema errors, 2 denied, 1 warning\n"
        "error: environments/bad: Certificate/bad/web spec.dnsNames: expected array, got string "
        "[schema]\n"
        "error: environments/bad: Certificate/bad/web spec.issuerRef: required field is missing "
        "[schema]\n"
        "error: environments/bad: Deployment/bad/root: root must set "
        "securityContext.runAsNonRoot [policy:main.deny]\n"
        "error: environments/bad: Deployment/bad/web spec.replicas: expected integer, got string "
        "[schema]\n"
        "error: environments/bad: Deployment/bad/web spec.template.spec.containers[0]"
        ".imagePullPolice: unknown field; did you mean 'imagePullPolicy'? [schema]\n"
        "error: environments/bad: Deployment/bad/web spec.template.spec.containers[1].name: "
        "required field is missing [schema]\n"
        "error: environments/bad: Secret/bad/creds: password <redacted> of creds looks "
        "guessable (<redacted>) [policy:main.deny]\n"
        "error: environments/bad: Secret/bad/creds data.port: expected string, got integer "
        "[schema]\n"
        "warning: environments/bad: Deployment/bad/root: root runs a single replica "
        "[policy:main.deployment.warn]\n"
        "unchecked: environments/bad: ServiceMonitor: no schema for monitoring.coreos.com/v1 "
        "ServiceMonitor in Kubernetes 1.37 (1 object not validated); add its JSON Schema to "
        "policy/schemas/ to check it [schema]\n"
    )
    assert bad.exit_code == 1


def test_secret_values_appear_nowhere(bad: CheckReport) -> None:
    for text in (bad.text(), json.dumps(bad.to_json())):
        for value in SECRET_VALUES:
            assert value not in text


def test_json_names_object_and_field(bad: CheckReport) -> None:
    data = bad.to_json()
    assert data["ok"] is False
    assert data["counts"] == {
        "objects": 5,
        "schemaErrors": 6,
        "denied": 2,
        "warnings": 1,
        "uncheckedKinds": 1,
    }
    assert data["environments"] == [
        {"env": "environments/bad", "objects": 5, "invalid": 4, "error": None}
    ]
    replicas = [f for f in data["findings"] if f["path"] == "spec.replicas"]
    assert replicas == [
        {
            "env": "environments/bad",
            "level": "error",
            "source": "schema",
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "namespace": "bad",
            "name": "web",
            "path": "spec.replicas",
            "rule": "",
            "message": "expected integer, got string",
        }
    ]


def test_a_rule_reads_the_environment_spec(repo: Path) -> None:
    report = check_environments(repo, ["environments/prod"])
    assert [f.line() for f in report.sorted_findings()] == [
        "error: environments/prod: Deployment/prod/web: web has 1 replica(s); environments/prod "
        "needs at least 2 [policy:main.deny_prod_replicas]",
        "warning: environments/prod: Deployment/prod/web: web runs a single replica "
        "[policy:main.deployment.warn]",
    ]


def test_inline_environments_are_checked_one_by_one(repo: Path) -> None:
    report = check_environments(repo, ["environments/inline/main.jsonnet"])
    assert [(e.env, e.objects, e.invalid) for e in report.envs] == [
        ("environments/inline [inline/blue]", 1, 0),
        ("environments/inline [inline/green]", 1, 1),
    ]
    assert [f.line() for f in report.findings] == [
        "error: environments/inline [inline/green]: ConfigMap/green/greeting spec: unknown "
        "field [schema]"
    ]


def test_a_render_error_fails_that_environment_only(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(repo, root)
    (root / "environments" / "good" / "main.jsonnet").write_text("{ a: error 'boom' }\n")
    report = check_environments(root, ["environments/good", "environments/prod"])
    assert report.envs[0].env == "environments/good"
    assert "boom" in str(report.envs[0].error)
    assert str(root) not in str(report.envs[0].error)
    assert report.envs[1].objects == 1
    assert report.summary().endswith(", 1 environment failed to render")
    assert report.exit_code == 1


def test_a_broken_policy_stops_the_check(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(repo, root)
    (root / "policy" / "broken.rego").write_text("package main\n\ndeny contains msg if {\n")
    with pytest.raises(PolicyError, match=r"^policy/broken.rego:3:\d+: "):
        check_environments(root, ["environments/good"])


def test_settings_and_paths(repo: Path) -> None:
    with pytest.raises(SchemaSettingError, match=r"TANKA_BOT_KUBERNETES_VERSION=1\.2"):
        check_environments(repo, ["environments/good"], CheckOptions(kubernetes_version="1.2"))
    with pytest.raises(CheckSetupError, match=r"^no environment at environments/none: "):
        check_environments(repo, ["environments/none"])
    with pytest.raises(CheckSetupError, match="is outside the repository"):
        check_environments(repo, ["/"])
    # Another policy folder, and with it another schema folder: the CRD becomes unchecked.
    other = check_environments(repo, ["environments/bad"], CheckOptions(policy_dir="absent"))
    assert other.policies == []
    assert {f.obj.kind for f in other.findings if f.level == "unchecked"} == {
        "Certificate",
        "ServiceMonitor",
    }


def test_text_can_be_cut_for_a_proposal(bad: CheckReport) -> None:
    lines = bad.text(limit=3).splitlines()
    assert lines[0] == bad.summary()
    assert lines[1].startswith("error: environments/bad: Certificate/bad/web spec.dnsNames")
    assert len(lines) == 5
    assert lines[-1] == "... and 7 more (run `tanka-bot tk check` for all)"
    assert bad.text(limit=100) == bad.text()


def test_a_diffs_renders_of_the_same_tree_are_checked_without_rendering_again(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    envs = ["environments/prod", "environments/inline/main.jsonnet", "environments/bad"]
    expected = check_environments(repo, envs)
    renders = {
        f"{env.removesuffix('/main.jsonnet')}/main.jsonnet": render_entrypoint(
            repo / env, settings=EvalSettings(confine=repo)
        )
        for env in envs
    }
    monkeypatch.setattr(check_run, "render", None)  # any render here would fail
    reused = check_environments(repo, envs, renders=renders)
    assert reused.text() == expected.text()
    assert [e.env for e in reused.envs] == [e.env for e in expected.envs]
    # A render that failed for the diff is rendered here again, for the check's own wording.
    monkeypatch.undo()
    failed = check_environments(repo, ["environments/prod"],
                                renders={"environments/prod/main.jsonnet": "error"})  # fmt: skip
    assert failed.text() == check_environments(repo, ["environments/prod"]).text()
