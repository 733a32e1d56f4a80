"""Real paths inside a directory, worked out without looking at anything outside it.

os.path.realpath lstats every component of the path and of every symlink target, wherever they
lead; a symlink in the project pointing at /etc would have it look there. `ConfinedPaths.walk`
resolves the components one by one from the directory's real path, and the first step that
leaves it (a `..` above it, a symlink whose target is elsewhere) ends the walk with `Outside`,
naming where it led as text. Both the evaluator's import callback and the import analysis use it,
so neither reads, stats or reads the link of anything outside the project.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

SYMLINK_LIMIT = 40  # as Linux's ELOOP


@dataclass(frozen=True, slots=True)
class Resolved:
    real: str  # what os.path.realpath returns for the path
    missing: bool = False  # a component does not exist (or is no directory)


@dataclass(frozen=True, slots=True)
class Outside:
    target: str  # where the path leads, outside the directory (worked out as text)


class ConfinedPaths:
    """Resolution of paths inside `confine`; each directory is resolved once (the tree is taken
    as fixed for the life of the instance, one evaluation or one analysis)."""

    def __init__(self, confine: str | os.PathLike[str]) -> None:
        self.root = os.path.normpath(os.path.abspath(confine))
        self.real_root = os.path.realpath(confine)
        self._dirs: dict[str, Resolved | Outside] = {}

    def contains(self, path: str) -> bool:
        """Whether `path` (absolute, normalised) is lexically inside the directory."""
        return within(path, self.root)

    def directory(self, path: str) -> Resolved | Outside:
        """`walk(path)`, remembered."""
        found = self._dirs.get(path)
        if found is None:
            found = self._dirs[path] = self.walk(path)
        return found

    def walk(self, path: str) -> Resolved | Outside:
        """os.path.realpath(path) for `path` lexically inside the directory (see the module)."""
        if not self.contains(path):
            return Outside(path)
        pending = [part for part in reversed(path[len(self.root) :].split("/")) if part]
        current, links = self.real_root, 0
        while pending:
            part = pending.pop()
            if part == ".":
                continue
            if part == "..":
                if current == self.real_root:
                    return Outside(_joined(os.path.dirname(current), pending))
                current = os.path.dirname(current)
                continue
            step = os.path.join(current, part)
            try:
                info: os.stat_result | None = os.lstat(step)
            except (FileNotFoundError, NotADirectoryError):
                return Resolved(_joined(step, pending), missing=True)
            except OSError:
                info = None
            if info is None or (stat.S_ISLNK(info.st_mode) and links >= SYMLINK_LIMIT):
                # Unreadable, or a loop: opening it fails with the OS's own words.
                return Resolved(_joined(step, pending))
            if not stat.S_ISLNK(info.st_mode):
                current = step
                continue
            links += 1
            target = os.readlink(step)
            if os.path.isabs(target):
                base = next((b for b in (self.real_root, self.root) if within(target, b)), None)
                if base is None:
                    return Outside(_joined(os.path.normpath(target), pending))
                target, current = target[len(base) :], self.real_root
            pending.extend(part for part in reversed(target.split("/")) if part)
        return Resolved(current)


def within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _joined(path: str, pending: list[str]) -> str:
    """`path` with the components still to walk (`pending` is a stack: last one first)."""
    return os.path.normpath(os.path.join(path, *reversed(pending)))
