"""`tanka-bot tk diff`: the rendered diff of the working tree against a revision, as a command.

The default revision is the merge-base of HEAD with the base branch (TANKA_BOT_BASE_BRANCH, tried
as `origin/<branch>` first, then `<branch>`), so the diff shows what a pull request would change.

Output: on stdout the per-environment summary, the unified diff of each changed resource (its two
sides named "base <commit>" and "working tree") and a total line; on stderr, once each, the
environments that fail to render. Exit status as tk diff: 0 no differences ("No differences." on
stderr), 16 differences, 1 an error - an environment the change makes fail. One that fails at the
base as well is reported as already failing and does not make the diff an error.

tk diff's evaluation flags (bot/tk/flags.py: --name, -t/--target, --ext-*/--tla-*, --max-stack)
apply to both sides.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot.errors import UserError
from bot.tk import flags
from tools.tanka.base_tree import BaseTrees, RevisionError, git, ignored_vendors
from tools.tanka.diff.groups import group_envs, grouped_summary
from tools.tanka.diff.render_cache import DEFAULT_OPTIONS, RenderOptions
from tools.tanka.diff.resources import EnvDiff, first_line, summarize, totals
from tools.tanka.diff.revision import RevisionDiff, RevisionDiffer

EXIT_DIFF = 16
EXIT_ERROR = 1
DEFAULT_BASE_BRANCH = "main"  # bot.config.Settings.base_branch's default


def repository_root(cwd: Path) -> Path:
    try:
        return Path(git(cwd, "rev-parse", "--show-toplevel").strip())
    except RevisionError:
        raise UserError(
            f"{cwd} is not inside a git repository; run `tanka-bot tk diff` from a checkout of "
            "the Tanka repository"
        ) from None


def configured_base_branch(environ: Mapping[str, str] | None = None) -> str:
    """TANKA_BOT_BASE_BRANCH, without building the settings when no settings file is named:
    loading pydantic-settings costs more than a diff of a small environment."""
    env = os.environ if environ is None else environ
    if env.get("TANKA_BOT_CONFIG"):
        from bot.config import load_settings  # noqa: PLC0415 - tk start-up: pydantic-settings, 0.25 s, only with a settings file

        return load_settings(env).base_branch
    return env.get("TANKA_BOT_BASE_BRANCH") or DEFAULT_BASE_BRANCH


def base_trees(repo: Path, environ: Mapping[str, str] | None = None) -> BaseTrees:
    """Where base commits are materialised: with TANKA_BOT_WORKDIR set, the bot's own place in
    it, so the commits its cache maintenance prepared on this machine (tree, import index, base
    renders) serve this diff too; else a private cache in the temporary directory. A checkout
    with an ignored vendor/ keeps to the private cache: its trees hold a copy of that vendor/
    under the commit's name, which the bot would take for the commit's own files."""
    env = os.environ if environ is None else environ
    workdir = env.get("TANKA_BOT_WORKDIR")
    if workdir and not ignored_vendors(repo):
        return BaseTrees(Path(workdir).expanduser() / "base-trees")
    return BaseTrees()


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


def options_of(args: argparse.Namespace) -> RenderOptions:
    """The evaluation options tk diff's flags give."""
    return RenderOptions.of(
        name=getattr(args, "name", ""),
        targets=flags.targets(args),
        ext_vars=flags.variables(args, "ext"),
        tlas=flags.variables(args, "tla"),
        max_stack=getattr(args, "max_stack", 0),
    )


def run_diff(
    *,
    base: str | None,
    env_paths: Sequence[str],
    cwd: Path,
    summary: bool = False,
    options: RenderOptions = DEFAULT_OPTIONS,
) -> int:
    """tk diff's output (or, with `summary`, the summary with environments whose diffs are the
    same but for their own values grouped)."""
    repo = repository_root(cwd)
    if base is None:
        base = default_base(repo, configured_base_branch())
    paths = [str((cwd / p).absolute()) for p in env_paths]
    # persist: the base side's renders and import index stay on disk for the next run;
    # keep_worktree: this checkout's renders too, reused by the next run where they still hold.
    differ = RevisionDiffer(trees=base_trees(repo), persist=True, keep_worktree=True)
    result = differ.diff(repo, base, paths, options=options)
    if summary:  # environments with the same diff grouped, as proposals show them
        sys.stdout.write(grouped_summary(group_envs(result.envs)) if result.has_changes else "")
    else:
        sys.stdout.write(diff_text(result))
    for line in problems(result):
        print(line, file=sys.stderr)
    return exit_code(result)


def diff_text(result: RevisionDiff) -> str:
    """What stdout shows: the summary, the unified diffs, the total line; "" without changes."""
    changed = [e for e in result.envs if e.has_changes]
    if not changed:
        return ""
    parts = [summarize(changed)]
    parts.extend(f"\n# {e.env}\n{e.unified()}" for e in changed)
    parts.append(f"\n{totals(result.envs)}\n")
    return "".join(parts)


def problems(result: RevisionDiff) -> list[str]:
    """stderr's lines: each failing environment once, then "No differences." when nothing
    changed (as tk diff)."""
    short = result.base[:12]
    lines = []
    for env in result.errors:
        error = env.error or ""
        if env.already_failing:
            lines.append(
                f"tanka-bot: {env.env}: already failing at {short}, so not compared: "
                f"{first_line(error.removeprefix('working tree: '))}"
            )
        elif _fixed(env):
            lines.append(
                f"tanka-bot: {env.env}: renders now; it failed at {short}: "
                f"{first_line(error.removeprefix('base: '))}"
            )
        else:
            lines.append(f"tanka-bot: error: {env.env}: {error}")
    if exit_code(result) == 0:
        lines.append("No differences.")  # tk's words; the total line comes with changes
    return lines


def exit_code(result: RevisionDiff) -> int:
    """1 when the change makes an environment fail; else 16 on changes (an environment that the
    change makes render counts as one); else 0."""
    if any(not _fixed(e) for e in result.new_errors):
        return EXIT_ERROR
    if result.has_changes or result.new_errors:
        return EXIT_DIFF
    return 0


def _fixed(env: EnvDiff) -> bool:
    """Failed at the base only: the change made it render."""
    return not env.already_failing and (env.error or "").startswith("base: ")


def run(args: argparse.Namespace) -> int:
    return run_diff(
        base=args.base,
        env_paths=args.env_paths,
        cwd=Path.cwd(),
        summary=args.summary,
        options=options_of(args),
    )
