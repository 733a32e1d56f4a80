"""Which files differ between a commit and the working tree, and which environments that affects.

Files come from `git diff --name-status --no-renames <commit>` (a rename is a deletion plus an
addition, so both sides' importers are asked) plus untracked, not ignored files. The affected
environments are the union of two importers analyses (importers.py): over the working tree, with
deleted files as `deleted:`, and over the base tree, with added files as `deleted:` - so an
environment that stopped importing a file, or whose main.jsonnet is gone, is found as well as one
that started.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tools.tanka.diff.base_tree import BaseTrees, git, resolve_commit
from tools.tanka.imports.importers import importers


@dataclass(frozen=True, slots=True)
class FileChanges:
    """Repository-relative POSIX paths, split by what happened to each file."""

    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.modified or self.deleted)

    @property
    def count(self) -> int:
        return len(self.added) + len(self.modified) + len(self.deleted)


def changed_files(repo: Path, commit: str) -> FileChanges:
    """Files that differ between `commit` and the working tree of `repo`."""
    added: set[str] = set()
    modified: set[str] = set()
    deleted: set[str] = set()
    fields = git(repo, "diff", "--name-status", "--no-renames", "-z", commit, "--").split("\0")
    for status, path in zip(fields[0::2], fields[1::2], strict=False):
        if status == "A":
            added.add(path)
        elif status == "D":
            deleted.add(path)
        elif status:
            modified.add(path)  # M, T (type change), U (unmerged)
    untracked = git(repo, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    added.update(p for p in untracked if p)
    return FileChanges(tuple(sorted(added)), tuple(sorted(modified)), tuple(sorted(deleted)))


def affected_entrypoints(repo: Path, base_tree: Path, changes: FileChanges) -> list[str]:
    """main.jsonnet files (relative to the repository) whose render the changes may alter."""
    if changes.empty:
        return []
    now = importers(repo, [*changes.added, *changes.modified], changes.deleted)
    before = importers(base_tree, [*changes.deleted, *changes.modified], changes.added)
    return sorted(set(_relative(now, repo)) | set(_relative(before, base_tree)))


def _relative(paths: Iterable[str], root: Path) -> Iterable[str]:
    top = os.path.realpath(root)
    for path in paths:
        rel = os.path.relpath(path, top)
        if not rel.startswith(".."):
            yield Path(rel).as_posix()


def affected_now(repo: Path, commit: str, trees: BaseTrees | None = None) -> list[str]:
    """The entrypoints (relative to `repo`) the changes since `commit` affect that still exist
    in the working tree: the environments a check of the change renders. `trees` reuses a
    caller's materialised base commits (the agent's shared differ has one)."""
    repo = Path(os.path.realpath(repo))
    full = resolve_commit(repo, commit)
    tree = (trees or BaseTrees()).tree(repo, full)
    found = affected_entrypoints(repo, tree, changed_files(repo, full))
    return [rel for rel in found if (repo / rel).is_file()]
