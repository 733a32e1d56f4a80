"""The import index of a materialised commit: what each environment's import resolution reads.

Finding the environments a change affects means resolving every environment's transitive imports
(importers.py). On a repository of Tempo's size that is thousands of files to lex, on both sides
of the diff, every time. A commit never changes, so its materialised tree (diff/base_tree.py) is
indexed once: for each entrypoint, every path its resolution looked at (the files reached and the
candidates probed before them, symlinks resolved) and, apart, the probed candidates that did not
exist. The index is kept on disk next to the tree it describes and is deleted with it.

changed.py then asks the index which environments read a changed path - a reverse lookup, no file
read - and walks the working tree only for the few environments whose resolution can differ from
the commit's for another reason (see there).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from tools.tanka.base_tree import write_atomically
from tools.tanka.imports.graph import (
    ENTRYPOINT,
    FileSystemSnapshot,
    ImportScanner,
    default_scanner,
    project_root,
    search_path,
)
from tools.tanka.imports.importers import find_entrypoints

FORMAT = 1  # bumped whenever what an index holds changes; other versions are rebuilt


@dataclass(frozen=True, slots=True)
class EnvDeps:
    """One entrypoint's import resolution, as paths relative to the indexed tree."""

    reads: frozenset[str]  # symlink-resolved: every file reached and every candidate probed
    missing: tuple[str, ...]  # probed candidates that did not exist, as probed (not resolved)


@dataclass(frozen=True, slots=True)
class ImportIndex:
    envs: dict[str, EnvDeps]  # entrypoint (relative POSIX path) -> its resolution

    def readers(self, paths: Iterable[str]) -> set[str]:
        """The entrypoints whose resolution reads or probes any of `paths` (resolved, relative)."""
        wanted = set(paths)
        return {env for env, deps in self.envs.items() if not wanted.isdisjoint(deps.reads)}

    def to_json(self) -> str:
        """Compact: each path once in a table, environments refer to it by number."""
        table: dict[str, int] = {}

        def ids(paths: Iterable[str]) -> list[int]:
            return [table.setdefault(p, len(table)) for p in sorted(paths)]

        envs = {
            env: {"reads": ids(deps.reads), "missing": ids(deps.missing)}
            for env, deps in sorted(self.envs.items())
        }
        return json.dumps({"format": FORMAT, "paths": list(table), "envs": envs})

    @classmethod
    def from_json(cls, text: str) -> ImportIndex | None:
        """The index, or None when the text is not one of this FORMAT (rebuild it)."""
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                return None
            paths: list[str] = data["paths"]
            return cls(
                {
                    env: EnvDeps(
                        frozenset(paths[i] for i in entry["reads"]),
                        tuple(paths[i] for i in entry["missing"]),
                    )
                    for env, entry in data["envs"].items()
                }
            )
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            return None


def build_index(tree: Path, scanner: ImportScanner | None = None) -> ImportIndex:
    """Index every environment below `tree`, imports confined to it (as importers.py does)."""
    top = Path(os.path.realpath(tree))
    resolve = _Resolver(top, scanner)
    return ImportIndex({e.relative_to(top).as_posix(): resolve(e) for e in find_entrypoints(top)})


# Files whose change can move every environment's import paths (graph.project_root).
ROOT_MARKERS = frozenset({"tkrc.yaml", "jsonnetfile.json"})


def update_index(
    previous: ImportIndex,
    tree: Path,
    changed: Iterable[str],
    scanner: ImportScanner | None = None,
    *,
    previous_tree: Path | None = None,
) -> ImportIndex | None:
    """The index of `tree`, from `previous`: the index of a tree whose files differ from this
    one's only at the `changed` paths (relative, no symlink among them on either side - reads
    are recorded resolved, so a changed link is not seen as such; the caller checks). Equal to
    `build_index(tree)`, resolving again only the environments whose resolution can differ: those
    that read or probed a changed path, those for which a path probed in vain exists now, and new
    ones. None when a root marker changed (every environment's jpath may move): build it whole.

    Given `previous_tree` (a tree whose files `previous` describes), a changed file that imports
    the same paths, in the same order, in both trees counts as unchanged: a resolution follows
    only a file's imports, so it reads and probes the same paths in both (a base move that
    edits a library's code but not its imports re-resolves nothing)."""
    paths = set(changed)
    if any(Path(p).name in ROOT_MARKERS for p in paths):
        return None
    top = Path(os.path.realpath(tree))
    resolve = _Resolver(top, scanner)
    if previous_tree is not None:
        paths -= _same_imports(paths, Path(os.path.realpath(previous_tree)), top, resolve.scan)
    envs: dict[str, EnvDeps] = {}
    for entrypoint in (top / e for e in entrypoints_after(previous, top, set(changed))):
        rel = entrypoint.relative_to(top).as_posix()
        deps = previous.envs.get(rel)
        if (
            deps is None
            or not paths.isdisjoint(deps.reads)
            or any(os.path.lexists(top / m) for m in deps.missing)
        ):
            deps = resolve(entrypoint)
        envs[rel] = deps
    return ImportIndex(envs)


def _same_imports(paths: set[str], before: Path, after: Path, scan: ImportScanner) -> set[str]:
    """The `paths` that are a regular file in both trees importing the same paths alike."""
    same = set()
    for path in paths:
        old, new = before / path, after / path
        if not all(os.path.isfile(p) and not os.path.islink(p) for p in (old, new)):
            continue
        try:
            imports = [[(r.kind, r.path) for r in scan.scan_file(p).imports] for p in (old, new)]
        except OSError:
            continue
        if imports[0] == imports[1]:
            same.add(path)
    return same


def entrypoints_after(previous: ImportIndex, tree: Path, changed: Iterable[str]) -> list[str]:
    """The entrypoints below `tree` (relative, in find_entrypoints' order) without walking it:
    those of `previous` - the index of a tree whose files differ from this one's only at the
    `changed` paths, none of them a symlink on either side - with the changed main.jsonnet
    files that are gone dropped and the new ones added. Without symlinks in the change, a
    directory only appears or goes with a file in it, and that file is among `changed`."""
    found = set(previous.envs)
    for path in changed:
        if Path(path).name == ENTRYPOINT:
            (found.add if os.path.isfile(tree / path) else found.discard)(path)
    # os.walk's order: a directory's own entrypoint, then its subdirectories' by name.
    return sorted(found, key=lambda env: Path(env).parent.parts)


class _Resolver:
    """One environment's import resolution as EnvDeps, with what environments share memoised."""

    def __init__(self, top: Path, scanner: ImportScanner | None) -> None:
        self.top = top
        self.scan = scanner or default_scanner()
        self.fs = FileSystemSnapshot()
        self.real = _RelativeRealPaths(top)

    def __call__(self, entrypoint: Path) -> EnvDeps:
        top, fs = self.top, self.fs
        base = entrypoint.parent
        env_root = project_root(base) or top
        probed = self.scan.dependency_paths(
            entrypoint, search_path(env_root, base), confine=top, fs=fs
        )
        reads = frozenset(r for r in map(self.real, probed) if r is not None)
        missing = tuple(sorted(os.path.relpath(p, top) for p in probed if fs.stat(p) is None))
        return EnvDeps(reads, missing)


class _RelativeRealPaths:
    """Symlink-resolved paths relative to `top` (None outside it), memoised: environments share
    most of their vendored imports."""

    def __init__(self, top: Path) -> None:
        self._top = str(top)
        self._memo: dict[str, str | None] = {}

    def __call__(self, path: str) -> str | None:
        if path not in self._memo:
            rel = os.path.relpath(os.path.realpath(path), self._top)
            self._memo[path] = None if rel.startswith("..") else Path(rel).as_posix()
        return self._memo[path]


_LOADED: dict[str, tuple[tuple[int, int], ImportIndex]] = {}
_LOADED_LOCK = threading.Lock()


def cached_index(
    tree: Path,
    file: Path,
    scanner: ImportScanner | None = None,
    *,
    derive: Callable[[], ImportIndex | None] | None = None,
) -> ImportIndex:
    """The index of `tree` stored at `file`, made and stored first when missing or unreadable:
    by `derive` (update_index from another commit's) when it gives one, else built whole.

    `file` must be owned by the tree's lifecycle (BaseTrees.sidecar): removed when the tree is
    rebuilt or evicted, so an index never describes other content than its tree's. Parsed indexes
    are also kept in memory for as long as the file is unchanged (a long-lived process).
    """
    key = str(file)
    try:
        info = file.stat()
    except OSError:
        info = None
    if info is not None:
        signature = (info.st_mtime_ns, info.st_size)
        with _LOADED_LOCK:
            held = _LOADED.get(key)
        if held is not None and held[0] == signature:
            return held[1]
        try:
            index = ImportIndex.from_json(file.read_text(encoding="utf-8"))
        except OSError:
            index = None
        if index is not None:
            with _LOADED_LOCK:
                _LOADED[key] = (signature, index)
            return index
    index = (derive() if derive is not None else None) or build_index(tree, scanner)
    write_atomically(file, index.to_json())
    try:
        written = file.stat()
    except OSError:  # not stored (read-only cache): still the right answer for this call
        return index
    with _LOADED_LOCK:
        _LOADED[key] = ((written.st_mtime_ns, written.st_size), index)
    return index
