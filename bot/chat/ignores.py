"""Refuse a local chat checkout whose secrets only the user's global gitignore hides.

The bot's git never reads system or global config (tools.sandbox.git_env), so a file such as
`.env` that the user ignores through `~/.config/git/ignore` (or core.excludesFile) counts as a new
file for the agent's diffs: its content would be shown, sent to the model and, on /approve,
committed and pushed. `tanka-bot chat` on a local checkout therefore starts only when the two views
of the untracked files agree (fail closed), and says how to make them agree.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from bot.errors import UserError
from tools.git import run_git
from tools.registry import ToolError

SHOWN = 5  # paths named in the error; the rest are counted


def check_global_ignores(root: Path, environ: Mapping[str, str]) -> None:
    """UserError when untracked files are ignored by the user's git but not by the bot's."""
    try:
        bots = _paths(run_git(root, "ls-files", "--others", "--exclude-standard", "-z"))
    except ToolError as exc:
        raise UserError(f"cannot list the untracked files of {root}: {exc}") from None
    hidden = sorted(bots - _users_untracked(root, environ))
    if not hidden:
        return
    more = f" and {len(hidden) - SHOWN} more" if len(hidden) > SHOWN else ""
    named = ", ".join(hidden[:SHOWN]) + more
    raise UserError(
        f"{root} has untracked files that only your global gitignore hides ({named}); tanka-bot "
        "does not read global git config, so it would show them and could commit them. Add "
        "them to .git/info/exclude (or the repository's .gitignore), or move them away"
    )


def _users_untracked(root: Path, environ: Mapping[str, str]) -> set[str]:
    # The user's own git and config on purpose: what they expect to be ignored on their machine.
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "--others", "--exclude-standard", "-z"],
            capture_output=True,
            timeout=60,
            env={**os.environ, **environ},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"cannot list the untracked files of {root} with git: {exc}") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
        raise UserError(f"cannot list the untracked files of {root} with git: {reason}")
    return _paths(done.stdout.decode("utf-8", "replace"))  # decoded as run_git decodes


def _paths(listing: str) -> set[str]:
    return {path for path in listing.split("\0") if path}
