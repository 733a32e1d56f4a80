"""`tanka-bot tk check`: exit codes 0/1/2, text and JSON output, the affected environments."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bot.cli import main

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_check" / "repo"
TANKA_BOT = Path(sys.executable).parent / "tanka-bot"
SECRET_VALUES = ("c3VwZXJzZWNyZXQ=", "supersecret", "aHVudGVyMg==", "hunter2")


def git(repo: Path, *args: str) -> str:
    ident = ["-c", "user.name=t", "-c", "user.email=t@t"]
    out = subprocess.run(["git", *ident, *args], cwd=repo, check=True, capture_output=True)
    return out.stdout.decode()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    monkeypatch.chdir(root)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # base trees go here
    for name in ("TANKA_BOT_POLICY_DIR", "TANKA_BOT_KUBERNETES_VERSION", "TANKA_BOT_BASE_BRANCH"):
        monkeypatch.delenv(name, raising=False)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tk", "check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_environment_exits_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "environments/good")
    assert (code, err) == (0, "")
    assert (
        out == "checks: 4 objects valid, 0 unchecked kinds, 0 schema errors, 0 denied, 0 warnings\n"
    )


def test_warnings_alone_still_exit_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "policy" / "main.rego").unlink()  # leaves only the warn rule of main.deployment
    code, out, _ = run(capsys, "environments/prod")
    assert code == 0
    assert out.splitlines()[1] == (
        "warning: environments/prod: Deployment/prod/web: web runs a single replica "
        "[policy:main.deployment.warn]"
    )


def test_errors_exit_1_and_json_is_machine_readable(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "environments/bad")
    assert code == 1
    assert out.startswith("checks: 1 of 5 objects valid, 1 unchecked kind, 6 schema errors")
    code, out, _ = run(capsys, "--output", "json", "environments/bad", "environments/good")
    assert code == 1
    data = json.loads(out)
    assert data["ok"] is False
    assert data["kubernetesVersion"] == "1.37"
    assert [e["env"] for e in data["environments"]] == ["environments/bad", "environments/good"]
    assert {f["level"] for f in data["findings"]} == {"error", "warning", "unchecked"}
    for value in SECRET_VALUES:
        assert value not in out


def test_default_is_the_environments_the_change_affects(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys)
    assert (code, out) == (0, "checks: no environment is affected by the change\n")
    main_jsonnet = repo / "environments" / "good" / "main.jsonnet"
    main_jsonnet.write_text(
        main_jsonnet.read_text().replace(
            "app.deployment('web')", "app.deployment('web', replicas='2')"
        )
    )
    code, out, _ = run(capsys, "--output", "json")
    assert code == 1
    data = json.loads(out)
    assert [e["env"] for e in data["environments"]] == ["environments/good"]
    assert [(f["name"], f["path"], f["message"]) for f in data["findings"]] == [
        ("web", "spec.replicas", "expected integer, got string")
    ]


def test_broken_policy_exits_2_naming_file_and_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "policy" / "broken.rego").write_text(
        "package main\n\ndeny contains msg if {\n  input.kind ==\n}\n"
    )
    code, out, err = run(capsys, "environments/good")
    assert (code, out) == (2, "")
    assert err == (
        "tanka-bot: error: policy/broken.rego:4:14: Invalid boolean operator; fix the policy "
        "(Rego v1 syntax, as OPA 1.0 and conftest use)\n"
    )
    code, out, _ = run(capsys, "--output", "json", "environments/good")
    assert code == 2
    assert json.loads(out)["error"].startswith("policy/broken.rego:4:14: ")


def test_bad_settings_and_paths_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run(capsys, "environments/nope")
    assert code == 2
    assert err.startswith("tanka-bot: error: no environment at environments/nope: ")
    monkeypatch.setenv("TANKA_BOT_KUBERNETES_VERSION", "1.9")
    code, _, err = run(capsys, "environments/good")
    assert code == 2
    assert "TANKA_BOT_KUBERNETES_VERSION: no schemas bundled for Kubernetes 1.9" in err
    monkeypatch.setenv("TANKA_BOT_KUBERNETES_VERSION", "1.25")
    monkeypatch.setenv("TANKA_BOT_POLICY_DIR", "elsewhere")
    code, out, _ = run(capsys, "environments/good")
    assert (code, out) == (
        0,
        "checks: 4 objects valid, 0 unchecked kinds, 0 schema errors, 0 denied, 0 warnings\n",
    )


def test_outside_git_needs_env_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    shutil.copytree(FIXTURE, plain)
    monkeypatch.chdir(plain)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    code, _, err = run(capsys)
    assert code == 2
    assert "is not inside a git repository" in err
    code, out, _ = run(capsys, "environments/good")
    assert code == 0
    assert out.startswith("checks: 4 objects valid")


def test_as_a_real_process(repo: Path) -> None:
    done = subprocess.run(
        [str(TANKA_BOT), "tk", "check", "environments/bad"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stdout.count("\n") == 11


def test_policies_outside_package_main_exit_2_naming_files_and_namespace(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for policy in (repo / "policy").glob("*.rego"):
        policy.write_text(policy.read_text().replace("package main", "package k8s", 1))
    code, out, err = run(capsys, "environments/prod")
    assert (code, out) == (2, "")
    assert err.startswith(
        "tanka-bot: error: policy/deployment.rego (package k8s.deployment), policy/main.rego "
        "(package k8s): no policy is in package main or main.<kind>, "
    )
