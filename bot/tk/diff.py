"""`tanka-bot tk diff`: the rendered diff of the working tree against a revision, as a command.

The default revision is the merge-base of HEAD with the base branch (TANKA_BOT_BASE_BRANCH, tried
as `origin/<branch>` first, then `<branch>`), so the diff shows what a pull request would change.
Exit status as tk diff: 0 no differences ("No differences." on stderr), 16 differences, 1 error.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from bot.errors import UserError
from tools.tanka.diff.base_tree import RevisionError, git
from tools.tanka.diff.groups import group_envs, grouped_summary
from tools.tanka.diff.revision import RevisionDiffer

EXIT_DIFF = 16


def repository_root(cwd: Path) -> Path:
    try:
        return Path(git(cwd, "rev-parse", "--show-toplevel").strip())
    except RevisionError:
        raise UserError(
            f"{cwd} is not inside a git repository; run tk diff from a checkout of the Tanka repo"
        ) from None


def default_base(repo: Path, branch: str) -> str:
    """The merge-base of HEAD with origin/<branch>, else with <branch>."""
    for candidate in (f"origin/{branch}", branch):
        try:
            return git(repo, "merge-base", "HEAD", candidate).strip()
        except RevisionError:
            continue
    raise UserError(
        f"no merge-base of HEAD with origin/{branch} or {branch}; pass --base REV or set "
        "TANKA_BOT_BASE_BRANCH to the branch changes are made against"
    )


def run_diff(
    *, base: str | None, env_paths: Sequence[str], cwd: Path, summary: bool = False
) -> int:
    """tk diff's output (or, with `summary`, the summary with identical diffs grouped)."""
    repo = repository_root(cwd)
    if base is None:
        from bot.config import load_settings

        base = default_base(repo, load_settings().base_branch)
    paths = [str((cwd / p).absolute()) for p in env_paths]
    result = RevisionDiffer().diff(repo, base, paths)
    if result.has_changes:
        sys.stdout.write(grouped_summary(group_envs(result.envs)) if summary else result.text())
    for env in result.errors:
        print(f"tanka-bot: error: {env.env}: {env.error}", file=sys.stderr)
    if result.errors:
        return 1
    if not result.has_changes:
        print("No differences.", file=sys.stderr)
        return 0
    return EXIT_DIFF
