"""Helpers the `tanka-bot tk` commands share: evaluation settings, tk's error texts, git's root.

Light on purpose: `tanka-bot tk --help` imports it, so the engine loads inside the functions that
evaluate, not here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import UserError
from tools.tanka.errors import NoBaseError, NoMatchingEnvError, NoRootError

if TYPE_CHECKING:
    from tools.tanka.env.loader import EvalSettings


def one_line(text: str) -> str:
    """tk's multi-line texts (e.g. "Unable to identify the project root.\nTried ...") joined."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def eval_settings(path: str, *, in_process: bool = True) -> EvalSettings:
    """Imports confined to the git repository holding `path` rather than the Tanka project, since
    vendored symlinks may point elsewhere in the repository (Tempo's do); outside git, the
    project (the engine's default). Evaluation runs in this process (InProcessPool): a person
    running tk on their own checkout needs no sandbox from it, as `tk` has none, and starting a
    worker process would cost more than a whole evaluation of a small environment."""
    # The engine loads the Jsonnet VM: only the commands that evaluate pay for it.
    from tools.tanka.env.loader import EvalSettings  # noqa: PLC0415 - tk start-up: the engine loads when a command runs
    from tools.tanka.evaluation.pool import InProcessPool  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    top = git_toplevel(Path(path).absolute())
    return EvalSettings(confine=top, pool=InProcessPool() if in_process else None)


def git_toplevel(start: Path) -> Path | None:
    """The working tree around `start` (a `.git` directory, or a worktree's `.git` file), as
    `git rev-parse --show-toplevel` finds it, without starting git."""
    while not start.is_dir() and start != start.parent:
        start = start.parent
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


@contextmanager
def env_path_errors(env_path: str) -> Iterator[None]:
    """tk reads a path that does not exist as an environment name searched from `.`; say so
    rather than that no project root was found."""
    try:
        yield
    except (NoBaseError, NoRootError, NoMatchingEnvError) as exc:
        if os.path.exists(env_path):
            raise
        raise UserError(
            f"{env_path}: no such directory, and no environment of that name below the "
            "current directory; give an environment directory (see `tanka-bot tk env list`)"
        ) from exc
