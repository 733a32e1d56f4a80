"""Fresh git repositories made from a task's fixture folder, and what changed in one since.

Every run gets its own copy of the fixture committed into a new repository with a fixed identity
and date, so the base commit id is the same for every copy of one fixture and nothing a run does
can reach another run or the fixture. git runs under tools.gitrun's isolation policy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tools.gitrun import Git

GIT_TIMEOUT = 60.0
_IDENTITY = {
    "GIT_AUTHOR_NAME": "tanka-bot eval",
    "GIT_AUTHOR_EMAIL": "eval@tanka-bot.invalid",
    "GIT_COMMITTER_NAME": "tanka-bot eval",
    "GIT_COMMITTER_EMAIL": "eval@tanka-bot.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
}


def _git(root: Path) -> Git:
    return Git(root, GIT_TIMEOUT, env=_IDENTITY)


def fresh_repo(fixture: Path, dest: Path) -> str:
    """Copy `fixture` to `dest` (which must not exist), commit it on `main`; the commit id."""
    shutil.copytree(fixture, dest, symlinks=True)
    git = _git(dest)
    git.run("init", "-q", "-b", "main", ".")
    git.run("add", "--all", ".")
    git.run("commit", "-q", "--no-verify", "-m", "base")
    return git.out("rev-parse", "HEAD")


def apply_patch(root: Path, patch: Path) -> None:
    """`git apply` the patch to the working tree; GitError naming git's reason when it fails."""
    _git(root).run("apply", "--whitespace=nowarn", str(patch))


def changed_files(root: Path, base: str) -> list[str]:
    """Paths (relative, sorted) whose content differs from `base`: tracked edits, deletions, new
    files, ignored files included (the agent may write anywhere it is allowed to)."""
    git = _git(root)
    tracked = git.run("diff", "--name-only", "-z", "--no-renames", base).text()
    others = git.run("ls-files", "--others", "-z").text()
    names = {n for n in (tracked + others).split("\0") if n}
    return sorted(names)
