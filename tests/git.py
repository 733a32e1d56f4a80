"""git for test set-up and checks: the developer's git config cannot leak in, commits have an
author, and a failure raises (CalledProcessError) with git's stderr attached."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

# Identity for the commits tests make themselves; -c beats any repository config.
IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.com")


def git(cwd: Path, *args: str, input_text: str | None = None) -> str:
    """stdout of `git <args>` in `cwd`, as git printed it (trailing newline included)."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        ["git", *IDENTITY, *args],
        cwd=cwd,
        env=env,
        input=input_text,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def committed_copy(source: Path, root: Path) -> Path:
    """`source` copied to `root`, made a git repository with it all in one commit on main."""
    shutil.copytree(source, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root
