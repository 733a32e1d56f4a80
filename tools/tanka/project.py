"""Where a Tanka project and an environment live on disk (tk's pkg/jsonnet/jpath rules).

* root: the nearest directory upward holding `tkrc.yaml`; only when there is none anywhere up the
  tree, the nearest holding `jsonnetfile.json` (so a tkrc.yaml beats a nearer jsonnetfile.json);
* entrypoint file name: `main.jsonnet` for a directory, the file's own name for a file;
* base: the nearest directory from the start up to the root (inclusive) holding that file name.
Existence is checked by name in the directory listing, exactly as tk does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tools.tanka.errors import NoBaseError, NoRootError, PathNotFoundError

DEFAULT_ENTRYPOINT = "main.jsonnet"
SPEC_FILE = "spec.json"
_ROOT_MARKERS = ("tkrc.yaml", "jsonnetfile.json")


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
    return Path(os.path.normpath(os.path.abspath(os.fspath(path))))


def fs_dir(path: str | os.PathLike[str]) -> Path:
    """The directory itself, or a file's parent; the path must exist."""
    full = absolute(path)
    if not full.exists():
        raise PathNotFoundError(str(full))
    return full if full.is_dir() else full.parent


def entrypoint_name(path: str | os.PathLike[str]) -> str:
    full = absolute(path)
    if not full.exists():
        raise PathNotFoundError(str(full))
    return DEFAULT_ENTRYPOINT if full.is_dir() else full.name


def find_root(path: str | os.PathLike[str]) -> Path:
    """The project root of `path` (a file or directory); NoRootError when there is none."""
    start = fs_dir(path)
    for marker in _ROOT_MARKERS:
        found = find_parent_with(marker, start, Path(start.anchor))
        if found is not None:
            return found
    raise NoRootError()


def find_base(path: str | os.PathLike[str], root: Path) -> Path:
    """The environment base of `path`: the nearest directory up to `root` holding its entrypoint."""
    filename = entrypoint_name(path)
    found = find_parent_with(filename, fs_dir(path), root)
    if found is None:
        raise NoBaseError(filename)
    return found


def find_parent_with(name: str, start: Path, stop: Path) -> Path | None:
    """The first directory from `start` upward to `stop` (inclusive) listing an entry `name`."""
    current = start
    while True:
        if _lists(current, name):
            return current
        if current in (stop, current.parent):
            return None
        current = current.parent


def _lists(directory: Path, name: str) -> bool:
    # An entry that does not exist is not listed: most directories on the way up lack the name,
    # and listing one with thousands of environments for each of them costs O(n^2) over a repo.
    # The listing itself stays for the others: it matches names exactly, as tk does, also on
    # file systems that ignore case.
    if not os.path.lexists(directory / name):
        return False
    try:
        with os.scandir(directory) as entries:
            return any(entry.name == name for entry in entries)
    except OSError:
        return False


def resolve_env_paths(path: str | os.PathLike[str]) -> EnvPaths:
    """Root, base and absolute entrypoint of the environment containing `path`."""
    root = find_root(path)
    base = find_base(path, root)
    return EnvPaths(root, base, base / entrypoint_name(path))


def relative_to_root(path: Path, root: Path) -> str:
    """Go's filepath.Rel for paths below the root (`.` for the root itself)."""
    return os.path.relpath(path, root)
