"""Where a Tanka project and an environment live on disk (tk's pkg/jsonnet/jpath rules).

* root: the nearest directory upward holding `tkrc.yaml`; only when there is none anywhere up the
  tree, the nearest holding `jsonnetfile.json` (so a tkrc.yaml beats a nearer jsonnetfile.json);
* entrypoint file name: `main.jsonnet` for a directory, the file's own name for a file;
* base: the nearest directory from the start up to the root (inclusive) holding that file name.
Existence is checked by name in the directory listing, exactly as tk does.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tools.tanka.errors import NoBaseError, NoRootError, PathNotFoundError

DEFAULT_ENTRYPOINT = "main.jsonnet"
SPEC_FILE = "spec.json"
_ROOT_MARKERS = ("tkrc.yaml", "jsonnetfile.json")
# What Path.exists() takes for "not there" rather than an error to raise.
_NOT_THERE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


@dataclass(frozen=True, slots=True)
class EnvPaths:
    """The directories tk derives from a path given on the command line."""

    root: Path
    base: Path
    entrypoint: Path  # absolute: base / entrypoint file name

    @property
    def name(self) -> str:
        """A static environment's name: the base relative to the root (`.` for the root)."""
        return relative_to_root(self.base, self.root)

    @property
    def entrypoint_rel(self) -> str:
        """The environment's metadata.namespace: the entrypoint relative to the root."""
        return relative_to_root(self.entrypoint, self.root)

    @property
    def is_static(self) -> bool:
        return (self.base / SPEC_FILE).exists()

    def jpath(self) -> tuple[Path, ...]:
        """tk's import path list, lowest precedence first (searched last to first)."""
        return (self.root / "vendor", self.base / "vendor", self.root / "lib", self.base)


def absolute(path: str | os.PathLike[str]) -> Path:
    """Like Go's filepath.Abs: absolute and lexically cleaned, symlinks kept."""
    return Path(_absolute(path))


def _absolute(path: str | os.PathLike[str]) -> str:
    return os.path.normpath(os.path.abspath(os.fspath(path)))


def fs_dir(path: str | os.PathLike[str]) -> Path:
    """The directory itself, or a file's parent; the path must exist."""
    return Path(_located(path)[0])


def entrypoint_name(path: str | os.PathLike[str]) -> str:
    return _located(path)[1]


def _located(path: str | os.PathLike[str]) -> tuple[str, str]:
    """`path`'s directory (itself, or a file's parent) and its entrypoint file name, from one
    stat; PathNotFoundError when it does not exist (as Path.exists() would say)."""
    full = _absolute(path)
    try:
        is_dir = stat.S_ISDIR(os.stat(full).st_mode)
    except OSError as exc:
        if exc.errno not in _NOT_THERE:
            raise
        raise PathNotFoundError(full) from None
    if is_dir:
        return full, DEFAULT_ENTRYPOINT
    return os.path.dirname(full), os.path.basename(full)


def find_root(path: str | os.PathLike[str]) -> Path:
    """The project root of `path` (a file or directory); NoRootError when there is none."""
    return Path(_root(_located(path)[0]))


def _root(start: str) -> str:
    for marker in _ROOT_MARKERS:
        found = _parent_with(marker, start, "/")
        if found is not None:
            return found
    raise NoRootError()


def find_base(path: str | os.PathLike[str], root: Path) -> Path:
    """The environment base of `path`: the nearest directory up to `root` holding its entrypoint."""
    start, filename = _located(path)
    return Path(_base(filename, start, os.fspath(root)))


def _base(filename: str, start: str, root: str) -> str:
    found = _parent_with(filename, start, root)
    if found is None:
        raise NoBaseError(filename)
    return found


def find_parent_with(name: str, start: Path, stop: Path) -> Path | None:
    """The first directory from `start` upward to `stop` (inclusive) listing an entry `name`."""
    found = _parent_with(name, os.fspath(start), os.fspath(stop))
    return None if found is None else Path(found)


def _parent_with(name: str, start: str, stop: str) -> str | None:
    # Strings, not Path objects: resolving an environment runs several times per render, and
    # pathlib's object building was most of the cost of a render's bookkeeping.
    current = start
    while True:
        if _lists(current, name):
            return current
        parent = os.path.dirname(current)
        if current in (stop, parent):
            return None
        current = parent


def _lists(directory: str, name: str) -> bool:
    # An entry that does not exist is not listed: most directories on the way up lack the name,
    # and listing one with thousands of environments for each of them costs O(n^2) over a repo.
    # The listing itself stays for the others: it matches names exactly, as tk does, also on
    # file systems that ignore case.
    if not os.path.lexists(os.path.join(directory, name)):
        return False
    try:
        with os.scandir(directory) as entries:
            return any(entry.name == name for entry in entries)
    except OSError:
        return False


def resolve_env_paths(path: str | os.PathLike[str]) -> EnvPaths:
    """Root, base and absolute entrypoint of the environment containing `path`."""
    start, filename = _located(path)
    root = _root(start)
    base = _base(filename, start, root)
    return EnvPaths(Path(root), Path(base), Path(base, filename))


def relative_to_root(path: Path, root: Path) -> str:
    """Go's filepath.Rel for paths below the root (`.` for the root itself)."""
    return os.path.relpath(path, root)
