"""`tanka-bot tk check`: schema and policy findings for environments, for people and CI.

With no ENV_PATH, the environments the change affects are checked: those whose render the files
changed since the merge-base with the base branch may alter (as `tk diff` finds them). Exit 0
clean (warnings and unchecked kinds allowed), 1 a schema error, a deny or an environment that
does not render, 2 a broken policy, setting or argument.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.config import load_settings
from bot.errors import UserError
from bot.tk.diff import default_base
from tools.tanka.base_tree import RevisionError, git
from tools.tanka.check import CheckOptions, CheckReport, CheckSetupError, check_environments
from tools.tanka.imports.changed import affected_now

EXIT_BROKEN = 2


class CheckUsageError(UserError):
    """The check cannot run: broken policy, setting or argument (exit 2, not 1)."""

    exit_code = EXIT_BROKEN


def run_check(*, env_paths: Sequence[str], output: str, cwd: Path) -> int:
    settings = load_settings()
    options = CheckOptions(
        policy_dir=settings.policy_dir, kubernetes_version=settings.kubernetes_version
    )
    root = _root(cwd, explicit=bool(env_paths))
    try:
        paths = [_relative(root, cwd / p) for p in env_paths] or _affected(
            root, settings.base_branch
        )
        report = check_environments(root, paths, options)
    except CheckSetupError as exc:
        if output == "json":
            print(json.dumps({"ok": False, "error": str(exc)}))
        raise CheckUsageError(str(exc)) from None
    if output == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        sys.stdout.write(_text(report, env_paths))
    return report.exit_code


def _text(report: CheckReport, env_paths: Sequence[str]) -> str:
    if not report.envs and not env_paths:
        return "checks: no environment is affected by the change\n"
    return report.text()


def _relative(root: Path, path: Path) -> str:
    """Repository-relative when inside it, so messages name paths as the user sees them."""
    full = os.path.abspath(path)
    rel = os.path.relpath(full, root)
    return full if rel.startswith("..") else rel


def _root(cwd: Path, *, explicit: bool) -> Path:
    """The git repository around `cwd`; outside git, `cwd` itself when paths are given."""
    try:
        return Path(git(cwd, "rev-parse", "--show-toplevel").strip())
    except RevisionError:
        if explicit:
            return cwd
        raise CheckUsageError(
            f"{cwd} is not inside a git repository, so the changed environments are unknown; "
            "run tk check in a checkout or name the environments (ENV_PATH...)"
        ) from None


def _affected(root: Path, base_branch: str) -> list[str]:
    base = default_base(root, base_branch)
    return [str(root / rel) for rel in affected_now(root, base)]


def run(args: argparse.Namespace) -> int:
    return run_check(env_paths=args.env_paths, output=args.output, cwd=Path.cwd())
