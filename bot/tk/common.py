"""Helpers the `tanka-bot tk` commands share: tk's error texts, git's root, and the engine's
failures as one UserError each (bot.tk.cli wraps every command in `user_errors`).

Light: every tk command loads it, `fmt` too, so it imports the engine's errors only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.errors import UserError
from tools.errors import ToolError
from tools.tanka.errors import (
    FormatError,
    FormatterUnavailable,
    ImportersError,
    JsonnetError,
    NoBaseError,
    NoMatchingEnvError,
    NoRootError,
    ParallelError,
    TankaError,
)


def one_line(text: str) -> str:
    """tk's multi-line texts (e.g. "Unable to identify the project root.\nTried ...") joined."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


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


@contextmanager
def user_errors() -> Iterator[None]:
    """Expected engine failures become UserError: one message, no traceback."""
    try:
        yield
    except Exception as exc:
        error = user_error(exc)
        if error is None:
            raise
        raise error from None


def user_error(exc: Exception) -> UserError | None:
    """The UserError an engine failure is shown as; None for anything else (a bug)."""
    if isinstance(exc, UserError):
        return exc
    if isinstance(exc, NoMatchingEnvError):  # tk's text names tk's command; name ours
        return UserError(
            f"found no matching environments; run `tanka-bot tk env list {exc.path}` to view "
            "available options"
        )
    if isinstance(exc, JsonnetError | ParallelError):
        # The first line says what failed; the Jsonnet stack trace after it says where.
        return UserError(str(exc).strip())
    if isinstance(
        exc, TankaError | ImportersError | FormatError | FormatterUnavailable | ToolError
    ):
        return UserError(one_line(str(exc)))
    if isinstance(exc, OSError):
        return UserError(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
    return None
