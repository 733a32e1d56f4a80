"""`tanka-bot tk ...` through bot.cli.main and as a real process: output, exit codes, errors."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bot.cli import main
from tests.git import committed_copy, git

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_diff" / "repo"
EXPECTED = Path(__file__).parents[2] / "fixtures" / "tanka_diff" / "expected"
TANKA_BOT = Path(sys.executable).parent / "tanka-bot"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = committed_copy(FIXTURE, tmp_path / "repo")
    monkeypatch.chdir(root)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # `tk diff` base trees go here
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + ":/usr/bin:/bin")
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tk", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_env_list_table_names_and_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "env", "list", "--names")
    assert code == 0
    assert out == "environments/dev\nenvironments/prod\nmulti/blue\nmulti/green\n"
    code, out, _ = run(capsys, "env", "list", "environments/dev")
    assert out.splitlines()[0].split() == ["NAME", "NAMESPACE", "SERVER"]
    assert out.splitlines()[1].split() == ["environments/dev", "dev"]
    code, out, _ = run(capsys, "env", "list", "--json", "environments/prod")
    assert out.startswith('[{"apiVersion":"tanka.dev/v1alpha1","kind":"Environment",')
    assert out.endswith("}]\n")


def test_importers(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "importers", "lib/app.libsonnet")
    assert code == 0
    assert out == f"{repo.resolve()}/environments/prod/main.jsonnet\n"
    (repo / "environments/dev/main.jsonnet").unlink()
    code, out, _ = run(capsys, "importers", "deleted:environments/dev/main.jsonnet")
    assert out == f"{repo.resolve()}/environments/dev/main.jsonnet\n"


def test_fmt_test_and_write(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messy = repo / "lib" / "messy.libsonnet"
    messy.write_text('{a:1,\n"b":   2}')
    code, _, err = run(capsys, "fmt", "--test", "lib")
    assert code == 16
    assert "lib/messy.libsonnet" in err
    assert messy.read_text() == '{a:1,\n"b":   2}'
    code, _, _ = run(capsys, "fmt", "lib")
    assert code == 0
    assert messy.read_text() == "{\n  a: 1,\n  b: 2,\n}\n"


def test_lint(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "lint", "environments/prod")[0] == 0
    (repo / "environments/dev/main.jsonnet").write_text("{ a: import 'missing.libsonnet' }\n")
    code, out, _ = run(capsys, "lint", "environments/dev")
    assert code == 1
    assert "environments/dev/main.jsonnet:1:" in out
    assert "missing.libsonnet" in out


@pytest.mark.parametrize(
    "args",
    [
        ("env", "list", "no/such/dir"),
        ("show", "no/such/env"),
        ("importers", "no/such/file.libsonnet"),
        ("fmt", "no/such/file.jsonnet"),
        ("lint", "no/such/file.jsonnet"),
        ("diff", "--base", "no-such-rev"),
    ],
)
def test_bad_paths_give_one_line_errors_and_no_traceback(repo: Path, args: tuple[str, ...]) -> None:
    argv = [str(TANKA_BOT), "tk", *args]
    proc = subprocess.run(argv, cwd=repo, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("tanka-bot: error: ")
    assert proc.stderr.count("\n") == 1, proc.stderr


def test_diff_outside_git_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "diff", "--base", "HEAD")
    assert code == 1
    assert "not inside a git repository" in err


def test_diff_exit_codes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "diff")
    assert (code, out, err) == (0, "", "No differences.\n")
    main_file = repo / "environments/prod/main.jsonnet"
    main_file.write_text(main_file.read_text().replace("'web', 3", "'web', 5"))
    code, out, _ = run(capsys, "diff")
    assert code == 16
    assert out.startswith("environments/prod: 0 added, 1 changed, 0 removed\n")
    assert "-  replicas: 3\n+  replicas: 5\n" in out
    assert "UFJPRFBBU1NXT1JE" not in out
    main_file.write_text("{ broken: }\n")
    code, _, err = run(capsys, "diff", "environments/prod")
    assert code == 1
    assert "environments/prod" in err
    assert "Traceback" not in err


def test_diff_default_base_is_merge_base_with_base_branch(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    dev = repo / "environments/dev/main.jsonnet"
    dev.write_text(dev.read_text().replace("'debug'", "'info'"))
    git(repo, "commit", "-qam", "feature change")
    code, out, _ = run(capsys, "diff")
    assert code == 16
    assert out.startswith("environments/dev: 0 added, 1 changed, 0 removed\n")
    monkeypatch.setenv("TANKA_BOT_BASE_BRANCH", "feature")
    assert run(capsys, "diff")[0] == 0
    monkeypatch.setenv("TANKA_BOT_BASE_BRANCH", "nope")
    code, _, err = run(capsys, "diff")
    assert code == 1
    assert "TANKA_BOT_BASE_BRANCH" in err


@pytest.mark.parametrize("env", ["environments/prod", "environments/dev"])
def test_show_matches_committed_expectation(
    repo: Path, capsys: pytest.CaptureFixture[str], env: str
) -> None:
    code, out, _ = run(capsys, "show", env)
    assert code == 0
    assert out == (EXPECTED / env.replace("/", "_")).with_suffix(".yaml").read_text()


def test_show_accepts_tks_redirect_flag(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Scripts written for tk pass --dangerous-allow-redirect when they redirect `tk show`
    # (Grafana's rollout-operator tests do); the output is the same with or without it.
    plain = run(capsys, "show", "environments/dev")
    flagged = run(capsys, "show", "--dangerous-allow-redirect", "environments/dev")
    assert plain[0] == flagged[0] == 0
    assert flagged[1] == plain[1] != ""


def test_export_with_format_and_extension(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "exported"
    fmt = "{{.metadata.namespace}}/{{.kind}}-{{.metadata.name}}"
    code, stdout, _ = run(capsys, "export", str(out), "environments/dev", "--format", fmt)
    assert (code, stdout) == (0, "")
    assert sorted(p.name for p in out.rglob("*")) == [
        "ConfigMap-settings.yaml",
        "dev",
        "manifest.json",
    ]
    code, _, err = run(capsys, "export", str(out), "environments/dev", "--extension", "yml")
    assert code == 1
    assert "not empty" in err
