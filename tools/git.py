"""Read-only git tools on the session checkout: git_log, git_status, git_diff.

`working_diff` is also what the bot shows in a proposal and hashes for approval, so the model and
the reviewer see the same change: everything since the base commit, new files included, without
touching the checkout's own index (a throwaway index file collects the working tree).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from tools.context import ToolContext
from tools.gitrun import Git, GitError
from tools.registry import Tool

GIT_TIMEOUT = 60.0
# Options of every diff people or the model read: each line of each file, whatever the repository
# says. --text: no `.gitattributes` (`-diff`, `binary`, a binary diff driver) can turn an edit into
# "Binary files ... differ" while the branch carries it; no textconv or external driver rewrites it.
SHOWN_DIFF_OPTIONS = ("--text", "--no-ext-diff", "--no-textconv", "-M")
# git's well-known id of the empty tree: the base of a repository with no commits yet.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def run_git_bytes(root: Path, *args: str, env: dict[str, str] | None = None) -> bytes:
    """stdout of `git <args>` in `root`; GitError naming the subcommand and git's whole reason."""
    result = Git(root, GIT_TIMEOUT, env=env or {}).result(*args)
    if not result.ok:
        raise GitError(args[0], result.error_text() or f"exit status {result.returncode}")
    return result.stdout


def run_git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return run_git_bytes(root, *args, env=env).decode("utf-8", errors="replace")


def _has_commits(root: Path) -> bool:
    try:
        run_git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except GitError:
        return False
    return True


def diff_base(root: Path, base: str | None) -> str:
    """The commit to compare with: the session's base, else HEAD, else the empty tree."""
    if base:
        return base
    return "HEAD" if _has_commits(root) else EMPTY_TREE


def working_tree_id(root: Path) -> str:
    """The tree id of the working tree as `git add --all` sees it (ignored files excluded).

    Built in a throwaway index so the checkout's own index and staging are never touched.
    """
    index_path = _index_file(root)
    with tempfile.TemporaryDirectory(prefix="tanka-bot-index-") as scratch:
        temp_index = Path(scratch) / "index"
        if index_path.exists():
            # Its stat cache lets `add` skip unchanged files. copy2 keeps the index's mtime, which
            # git's racy-entry check needs: a file rewritten in the same clock tick as the index
            # (same size, same mtime) would otherwise be taken as unchanged and left out.
            shutil.copy2(index_path, temp_index)
        env = {"GIT_INDEX_FILE": str(temp_index)}
        run_git(root, "add", "--all", "--", ".", env=env)
        return run_git(root, "write-tree", env=env).strip()


def _index_file(root: Path) -> Path:
    """The checkout's index: `<root>/.git/index` in a plain clone (every session's checkout),
    without a git process (this runs several times a turn); git says where otherwise (a linked
    worktree or a submodule, whose `.git` is a file naming the real one; a subdirectory)."""
    dot_git = root / ".git"
    if dot_git.is_dir() and not dot_git.is_symlink():
        return dot_git / "index"
    return Path(run_git(root, "rev-parse", "--path-format=absolute", "--git-path", "index").strip())


def working_diff_bytes(root: Path, base: str | None, *extra: str) -> bytes:
    """`git diff` from `base` to the working tree, untracked (not ignored) files included.

    `extra` are diff options such as "--stat" or "--binary". Bytes, because a patch that rebuilds
    a checkout must carry file content exactly, whatever its encoding.
    """
    tree = working_tree_id(root)
    compare = diff_base(root, base)
    return run_git_bytes(
        root, "diff", "--no-ext-diff", "--no-textconv", "-M", *extra, compare, tree
    )  # fmt: skip


def working_diff(root: Path, base: str | None, *extra: str) -> str:
    """`working_diff_bytes` as text, for people and the model: every file as text (see
    SHOWN_DIFF_OPTIONS)."""
    return working_diff_bytes(root, base, "--text", *extra).decode("utf-8", errors="replace")


class LogInput(BaseModel):
    limit: int = Field(10, ge=1, le=200, description="How many recent commits to show.")


class NoInput(BaseModel):
    pass


def git_log(ctx: ToolContext, params: LogInput) -> str:
    if not _has_commits(ctx.root):
        return "no commits yet"
    fmt = "--format=%h %ad %an: %s"
    out = run_git(ctx.root, "log", f"-n{params.limit}", "--date=short", fmt, "--")
    return out.rstrip("\n")


def git_status(ctx: ToolContext, params: NoInput) -> str:
    out = run_git(ctx.root, "status", "--short", "--branch", "--untracked-files=all").rstrip("\n")
    lines = out.splitlines()
    if len(lines) <= 1:
        return f"{out}\nclean: no uncommitted changes".lstrip("\n")
    return out


def git_diff(ctx: ToolContext, params: NoInput) -> str:
    stat = working_diff(ctx.root, ctx.base_commit, "--stat").rstrip("\n")
    if not stat:
        since = f"base commit {ctx.base_commit[:12]}" if ctx.base_commit else "the last commit"
        return f"no changes since {since}"
    patch = working_diff(ctx.root, ctx.base_commit).rstrip("\n")
    return f"{stat}\n\n{patch}"


TOOLS: list[Tool[Any]] = [
    Tool(
        "git_log",
        "Show recent commits of the checkout (newest first): short hash, date, author, subject. "
        "Use it to learn how this repository's changes are usually made and described.",
        LogInput,
        git_log,
    ),
    Tool(
        "git_status",
        "Show the branch and which files are modified, added (??) or deleted in the checkout. "
        "Cheap: call it to check what you have changed so far.",
        NoInput,
        git_status,
    ),
    Tool(
        "git_diff",
        "Show everything changed since the session started (new files included): a --stat "
        "summary, then the unified diff. Call it after editing to review your change exactly as "
        "the human reviewer will see it; keep the diff small and free of unrelated edits.",
        NoInput,
        git_diff,
        page_hint="the --stat summary at the top lists every changed file; read one with file_read",
    ),
]
