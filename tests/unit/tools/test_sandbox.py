"""tools.sandbox: confinement, protected globs, text I/O and subprocesses, on a real filesystem."""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from tools import sandbox
from tools.errors import ToolError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib" / "app.libsonnet").write_text("{}\n")
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".git").mkdir()
    (tmp_path / "outside.txt").write_text("secret\n")
    return repo


@pytest.mark.parametrize(
    ("rel", "reason"),
    [
        ("", "empty path"),
        ("/etc/passwd", "absolute path"),
        ("~/x", "absolute path"),
        ("C:/x", "absolute path"),
        ("../outside.txt", "'..'"),
        ("lib/../../outside.txt", "'..'"),
        (".git/config", ".git/"),
        ("lib/.GIT/hooks/x", ".git/"),
        ("a\x00b", "NUL"),
    ],
)
def test_lexically_hostile_paths_are_refused(root: Path, rel: str, reason: str) -> None:
    with pytest.raises(ToolError, match=re.escape(reason)):
        sandbox.resolve(root, rel)


def test_plain_paths_resolve_inside_the_root(root: Path) -> None:
    assert sandbox.resolve(root, "lib/app.libsonnet") == (root / "lib/app.libsonnet").resolve()
    assert sandbox.resolve(root, "./lib//./new.jsonnet").name == "new.jsonnet"
    assert sandbox.resolve(root, ".") == root.resolve()


def test_symlinks_out_of_the_root_are_refused(root: Path, tmp_path: Path) -> None:
    (root / "out").symlink_to(tmp_path)
    (root / "file").symlink_to(tmp_path / "outside.txt")
    (root / "abs").symlink_to("/etc")
    for rel in ("out/outside.txt", "file", "abs/passwd"):
        with pytest.raises(ToolError, match="leads outside the repository"):
            sandbox.resolve(root, rel)


def test_symlinks_into_git_or_protected_paths_are_refused(root: Path) -> None:
    (root / "g").symlink_to(".git")
    (root / "w").symlink_to(".github/workflows")
    with pytest.raises(ToolError, match=r"\.git/"):
        sandbox.resolve(root, "g/config")
    assert sandbox.resolve(root, "w/ci.yml")  # reading through it is fine
    with pytest.raises(ToolError, match="protected"):
        sandbox.resolve(root, "w/ci.yml", for_write=True, protected=(".github/**",))


def test_symlink_loop_is_refused_with_a_message(root: Path) -> None:
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")
    with pytest.raises(ToolError, match="a"):
        sandbox.resolve(root, "a/x")


def test_protected_globs_block_writes_only(root: Path) -> None:
    protected = (".github/**", "**/*.secret")
    assert sandbox.resolve(root, ".github/workflows/ci.yml", protected=protected)
    for rel in (".github/workflows/ci.yml", ".github", "env/prod/key.secret"):
        with pytest.raises(ToolError, match="protected"):
            sandbox.resolve(root, rel, for_write=True, protected=protected)
    with pytest.raises(ToolError, match="root itself"):
        sandbox.resolve(root, ".", for_write=True)


def test_resolve_entry_keeps_a_final_symlink(root: Path, tmp_path: Path) -> None:
    (root / "link").symlink_to(tmp_path / "outside.txt")
    entry = sandbox.resolve_entry(root, "link")
    assert entry.is_symlink()
    assert entry.parent == root.resolve()
    (root / "d").symlink_to(tmp_path)
    with pytest.raises(ToolError, match="outside"):
        sandbox.resolve_entry(root, "d/outside.txt")


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/*.jsonnet", "environments/prod/main.jsonnet", True),
        ("**/*.jsonnet", "main.jsonnet", True),
        ("*.jsonnet", "environments/main.jsonnet", False),
        ("environments/**/main.jsonnet", "environments/a/b/main.jsonnet", True),
        ("environments/**/main.jsonnet", "environments/main.jsonnet", True),
        (".github/**", ".github", True),
        (".github/**", ".githubx/a", False),
        ("lib/[ab]?.libsonnet", "lib/b1.libsonnet", True),
        ("lib/[!ab]*", "lib/a.libsonnet", False),
        ("./lib/*", "lib/x", True),
        ("a.b", "axb", False),
    ],
)
def test_glob_match(pattern: str, path: str, matches: bool) -> None:
    assert sandbox.glob_match(pattern, path) is matches


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("[[]x", "[x", True),  # regex set syntax inside a class is literal (no FutureWarning)
        ("a[&&]b", "a&b", True),
        ("a[~~]b", "a~b", True),
        ("a[||]b", "a|b", True),
        ("a[]b", "a[]b", True),  # no class body: literal brackets
        ("[!]", "!", True),  # nothing to negate: a class holding '!'
        ("[a-c]", "b", True),
        ("[-a]", "-", True),
    ],
)
def test_glob_classes_hold_literal_characters(pattern: str, path: str, matches: bool) -> None:
    assert sandbox.glob_match(pattern, path) is matches


@pytest.mark.parametrize("pattern", ["[z-a]", "x[b-a]*"])
def test_an_invalid_glob_is_a_tool_error_naming_it(pattern: str) -> None:
    with pytest.raises(ToolError, match=re.escape(repr(pattern))):
        sandbox.glob_match(pattern, "a")


def test_read_text_refuses_binary_oversized_and_non_utf8(tmp_path: Path) -> None:
    (tmp_path / "bin").write_bytes(b"\x89PNG\x00\x01")
    (tmp_path / "latin").write_bytes(b"caf\xe9\n")
    (tmp_path / "big").write_text("x" * 100)
    with pytest.raises(ToolError, match="binary"):
        sandbox.read_text(tmp_path / "bin")
    with pytest.raises(ToolError, match="not UTF-8"):
        sandbox.read_text(tmp_path / "latin")
    with pytest.raises(ToolError, match="too large"):
        sandbox.read_text(tmp_path / "big", max_bytes=10)
    with pytest.raises(ToolError, match="does not exist"):
        sandbox.read_text(tmp_path / "nope")
    with pytest.raises(ToolError, match="not a regular file"):
        sandbox.read_text(tmp_path)


def test_atomic_write_replaces_content_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "run.sh"
    sandbox.atomic_write(target, "one\n")
    target.chmod(0o755)
    sandbox.atomic_write(target, b"two\n")
    assert target.read_text() == "two\n"
    assert target.stat().st_mode & 0o777 == 0o755
    assert sorted(p.name for p in target.parent.iterdir()) == ["run.sh"]


def test_scrubbed_env_drops_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_should_not_pass")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "nope")
    env = sandbox.scrubbed_env({"EXTRA": "1"})
    assert "GITHUB_TOKEN" not in env
    assert "AWS_SECRET_ACCESS_KEY" not in env
    assert env["EXTRA"] == "1"
    assert env["PATH"]


def test_run_uses_the_scrubbed_env_and_reports_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_should_not_pass")
    code = "import os,sys; print(os.environ.get('GITHUB_TOKEN')); sys.exit(3)"
    result = sandbox.run([sys.executable, "-c", code], cwd=tmp_path, timeout=30)
    assert result.text().strip() == "None"
    assert result.returncode == 3
    assert not result.ok


def test_run_kills_the_process_group_on_timeout(tmp_path: Path) -> None:
    # The child starts a grandchild that would outlive a plain kill; its pid lands in a file.
    code = (
        "import subprocess,sys,time;"
        "p=subprocess.Popen([sys.executable,'-c','import time; time.sleep(60)']);"
        "open('pid','w').write(str(p.pid)); time.sleep(60)"
    )
    with pytest.raises(ToolError, match=r"timed out after 1 s"):
        sandbox.run([sys.executable, "-c", code], cwd=tmp_path, timeout=1.0)
    pid = int((tmp_path / "pid").read_text())
    _wait_gone(pid)


def _wait_gone(pid: int) -> None:
    for _ in range(200):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        # a killed orphan is a zombie until init reaps it; /proc shows its state
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().split()[2] == "Z":
            return
        time.sleep(0.05)
    pytest.fail(f"grandchild {pid} survived the timeout")


def test_run_reports_a_missing_binary(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="not installed"):
        sandbox.run(["definitely-not-a-binary-xyz"], cwd=tmp_path, timeout=5)


def test_run_names_a_missing_working_directory_not_the_binary(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    with pytest.raises(ToolError, match=r"working directory .*gone does not exist") as caught:
        sandbox.run(["git", "version"], cwd=gone, timeout=5)
    assert "not installed" not in str(caught.value)


def test_run_reports_a_program_that_cannot_be_executed(tmp_path: Path) -> None:
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    with pytest.raises(ToolError, match=r"cannot run .*not-executable: Permission denied"):
        sandbox.run([str(script)], cwd=tmp_path, timeout=5)


def test_a_timeout_returns_even_if_a_detached_descendant_keeps_the_pipes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # setsid puts the sleeper in a new session, out of reach of the process-group kill; it
    # inherits stdout, so waiting for end-of-output would hang for its whole lifetime.
    monkeypatch.setattr(sandbox, "DRAIN_SECONDS", 0.2)
    pidfile = tmp_path / "detached.pid"
    script = f"setsid sleep 60 & echo $! > {pidfile}; sleep 60"
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            sandbox.run(["sh", "-c", script], cwd=tmp_path, timeout=0.5)
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(timeout=15)
    try:
        assert not worker.is_alive(), "run() waited for a detached descendant"
        assert len(outcome) == 1
        assert isinstance(outcome[0], sandbox.CommandTimeout)
    finally:
        os.kill(int(pidfile.read_text()), signal.SIGKILL)
