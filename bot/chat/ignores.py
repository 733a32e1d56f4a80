"""Refuse a local chat checkout whose secrets only the user's global gitignore hides.

The bot's git never reads system or global config (tools.gitrun), so a file such as
`.env` that the user ignores through `~/.config/git/ignore` (or core.excludesFile) counts as a new
file for the agent's diffs: its content would be shown, sent to the model and, on /approve,
committed and pushed. `tanka-bot chat` on a local checkout therefore starts only when the two views
of the untracked files agree (fail closed), and says how to make them agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bot.errors import UserError
from tools.git import run_git
from tools.gitrun import Git, GitError

SHOWN = 5  # paths named in the error; the rest are counted


def check_global_ignores(root: Path, environ: Mapping[str, str]) -> None:
    """UserError when untracked files are ignored by the user's git but not by the bot's."""
    try:
        bots = _paths(run_git(root, "ls-files", "--others", "--exclude-standard", "-z"))
    except GitError as exc:
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
    git = Git(root, 60.0, env=dict(environ), user_config=True)
    try:
        done = git.result("ls-files", "--others", "--exclude-standard", "-z")
    except GitError as exc:
        raise UserError(
            f"cannot list the untracked files of {root} with git: {exc.reason}"
        ) from None
    if not done.ok:
        reason = done.error_text() or f"exit {done.returncode}"
        raise UserError(f"cannot list the untracked files of {root} with git: {reason}")
    return _paths(done.text())  # decoded as run_git decodes


def _paths(listing: str) -> set[str]:
    return {path for path in listing.split("\0") if path}
