"""bot.chat.approve pieces that the end-to-end chat tests do not reach."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bot.chat.approve import local_user


def test_local_user_reads_the_repositorys_git_identity(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "user.name", "Tess"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "user.email", "t@x.org"], check=True)
    user = local_user(tmp_path, {})
    assert (user.label, user.identity is not None) == ("Tess <t@x.org>", True)


def test_local_user_falls_back_to_user_when_git_cannot_run(tmp_path: Path) -> None:
    # git missing from PATH (or hanging) must not end the chat with a traceback.
    user = local_user(tmp_path, {"PATH": str(tmp_path / "no-bin"), "USER": "ops"})
    assert (user.label, user.identity) == ("ops", None)
