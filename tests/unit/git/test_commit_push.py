"""Commit and push for the approval step, credentials through askpass, and no token anywhere."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import stat
from pathlib import Path

import pytest

from bot.git.askpass import TokenCredentials, askpass_env
from bot.git.checkout import Identity
from bot.workspace.repo_cache import RepoCache
from tests.unit.git.conftest import git
from tools.gitrun import Git, GitError

TOKEN = "ghs_TopSecretToken1234567890"


def test_commit_uses_the_bot_identity_and_push_reports_the_remote_commit(
    origin: Path, tmp_path: Path
) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    checkout = cache.start("s1", base_branch="main", branch="tanka-bot/s1-bump")
    (checkout.root / "lib/app.libsonnet").write_text("{ image: 'app:2' }\n")
    (checkout.root / "lib/extra.libsonnet").write_text("{}\n")
    commit = checkout.commit("Bump app to 2\n\nRequested in Slack.")
    who = git(checkout.root, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s")
    assert who == "Tanka Agent <tanka-agent@local>|Tanka Agent <tanka-agent@local>|Bump app to 2"
    assert git(checkout.root, "show", "--name-only", "--format=", commit).split() == [
        "lib/app.libsonnet",
        "lib/extra.libsonnet",
    ]
    result = checkout.push(str(origin))
    assert result.branch == "tanka-bot/s1-bump"
    assert result.commit == commit == git(origin, "rev-parse", "refs/heads/tanka-bot/s1-bump")
    # the change is still the whole change since the base after committing
    assert "lib/extra.libsonnet" in checkout.diff("--stat")


def test_author_override_and_repo_identity(origin: Path, tmp_path: Path) -> None:
    cache = RepoCache(tmp_path / "work", str(origin))
    checkout = cache.start("s2", base_branch="main", branch="b2")
    (checkout.root / "x.txt").write_text("x\n")
    checkout.commit("x", author=Identity("Ada", "ada@example.com"))
    who = git(checkout.root, "log", "-1", "--format=%an|%cn")
    assert who == "Ada|Tanka Agent"
    git(checkout.root, "config", "user.name", "Repo Bot")
    git(checkout.root, "config", "user.email", "repo@example.com")
    (checkout.root / "y.txt").write_text("y\n")
    checkout.commit("y")
    assert git(checkout.root, "log", "-1", "--format=%an|%cn") == "Repo Bot|Repo Bot"


def test_commit_refuses_nothing_and_empty_messages(origin: Path, tmp_path: Path) -> None:
    checkout = RepoCache(tmp_path / "w", str(origin)).start("n", base_branch="main", branch="b")
    with pytest.raises(GitError, match="git commit failed: nothing to commit"):
        checkout.commit("msg")
    (checkout.root / "z").write_text("z")
    with pytest.raises(GitError, match="message is empty"):
        checkout.commit("  ")


def test_hooks_in_the_checkout_never_run(origin: Path, tmp_path: Path) -> None:
    checkout = RepoCache(tmp_path / "w", str(origin)).start("h", base_branch="main", branch="b")
    marker = tmp_path / "hook-ran"
    for hook in ("pre-commit", "commit-msg", "post-commit", "pre-push"):
        script = checkout.root / ".git/hooks" / hook
        script.write_text(f"#!/bin/sh\ntouch {marker}\n")
        script.chmod(0o755)
    (checkout.root / "a").write_text("a")
    checkout.commit("a")
    checkout.push(str(origin))
    assert not marker.exists()


def test_the_hosts_git_config_is_not_followed(
    origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    marker = tmp_path / "helper-ran"
    (home / ".gitconfig").write_text(
        f"[credential]\n\thelper = !touch {marker}\n[user]\n\tname = Host User\n"
        "\temail = host@example.com\n"
    )
    monkeypatch.setenv("HOME", str(home))
    checkout = RepoCache(tmp_path / "w", str(origin)).start("g", base_branch="main", branch="b")
    (checkout.root / "a").write_text("a")
    checkout.commit("a")
    assert git(checkout.root, "log", "-1", "--format=%cn") == "Tanka Agent"


def test_askpass_script_answers_git_with_the_token(tmp_path: Path) -> None:
    creds = TokenCredentials(lambda: TOKEN)
    with askpass_env(creds) as (env, token):
        script = Path(env["GIT_ASKPASS"])
        assert stat.S_IMODE(script.stat().st_mode) == 0o700
        assert stat.S_IMODE(script.parent.stat().st_mode) == 0o700
        assert TOKEN not in script.read_text()  # the file holds no secret
        assert token == TOKEN
        # git itself asks the helper: `credential fill` prompts through GIT_ASKPASS
        runner = Git(tmp_path).with_env(env, secrets=(token,))
        answer = runner.run(
            "credential", "fill", input_bytes=b"protocol=https\nhost=github.example\n\n"
        ).text()
    assert "username=x-access-token" in answer
    assert f"password={TOKEN}" in answer
    assert not script.exists()  # removed with its directory


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_token_never_reaches_argv_logs_or_errors(
    origin: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.DEBUG)
    argv_log = _record_git_argv(tmp_path, monkeypatch)
    creds = TokenCredentials(lambda: TOKEN)
    cache = RepoCache(tmp_path / "work", str(origin), credentials=creds)
    cache.fetch()
    checkout = cache.start("s9", base_branch="main", branch="tanka-bot/s9")
    (checkout.root / "f").write_text("f")
    checkout.commit("f")
    assert checkout.push(str(origin), credentials=creds).commit == checkout.head()
    # an https remote that fails: the message names the command, never the token
    url = f"https://127.0.0.1:{_closed_port()}/org/repo.git"
    with pytest.raises(GitError) as info:
        checkout.push(url, credentials=creds)
    assert str(info.value).startswith("git push failed")
    assert TOKEN not in str(info.value)
    assert argv_log.read_text().count("push") == 2  # the wrapper really saw both pushes
    assert TOKEN not in argv_log.read_text()
    assert all(TOKEN not in record.getMessage() for record in caplog.records)
    assert TOKEN not in checkout.diff() + checkout.save_patch().decode()


def test_urls_carrying_credentials_are_refused(origin: Path, tmp_path: Path) -> None:
    with pytest.raises(GitError, match="credentials") as info:
        RepoCache(tmp_path / "w", f"https://x:{TOKEN}@github.com/org/repo.git")
    assert TOKEN not in str(info.value)
    checkout = RepoCache(tmp_path / "w", str(origin)).start("u", base_branch="main", branch="b")
    (checkout.root / "a").write_text("a")
    checkout.commit("a")
    with pytest.raises(GitError, match="credentials") as info:
        checkout.push(f"https://x-access-token:{TOKEN}@github.com/org/repo.git")
    assert TOKEN not in str(info.value)


def _record_git_argv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a git wrapper first on PATH that logs its argv, to prove the token is never an arg."""
    real = shutil.which("git")
    assert real
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log_file = tmp_path / "argv.log"
    wrapper = bindir / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log_file}\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    return log_file
