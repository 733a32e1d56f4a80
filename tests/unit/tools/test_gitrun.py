"""tools.gitrun: the one isolation policy every git call runs under."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.gitrun import Git, GitError, git_env


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[credential]\n\thelper = store\n[alias]\n\tx = !id\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GITHUB_TOKEN", "not-a-real-token")
    return home


def test_git_ignores_host_config_and_hooks(tmp_path: Path, home: Path) -> None:
    listing = Git(tmp_path).result("config", "--list", "--show-origin").text()
    assert "helper=store" not in listing
    assert "core.hookspath=/dev/null" in listing
    assert "alias.x" not in listing


def test_the_policy_never_asks_and_passes_no_credentials(home: Path) -> None:
    env = git_env({"GIT_INDEX_FILE": "/tmp/index"})
    assert env["GIT_SSH_COMMAND"] == "ssh -o BatchMode=yes"
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["HOME"] == os.devnull
    assert env["GIT_INDEX_FILE"] == "/tmp/index"
    assert "GITHUB_TOKEN" not in env


def test_user_config_reads_the_users_own_git_config(tmp_path: Path, home: Path) -> None:
    assert "helper=store" in Git(tmp_path, user_config=True).result("config", "--list").text()


def test_errors_name_the_command_and_hide_secrets(tmp_path: Path) -> None:
    url = "https://user:hunter2-secret@example.invalid/repo.git"
    git = Git(tmp_path, secrets=("hunter2-secret",))
    with pytest.raises(GitError, match=r"^git ls-remote failed \(exit \d+\): ") as info:
        git.run("ls-remote", "--", str(tmp_path / "absent") + "?" + url)
    assert "hunter2-secret" not in str(info.value)


def test_a_missing_directory_is_a_git_error(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="git status failed: cannot run git"):
        Git(tmp_path / "gone").run("status")
