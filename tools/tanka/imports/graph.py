"""Which files a Jsonnet file imports, resolved the way `tk` resolves them, transitively.

Resolution order (go-jsonnet's file importer with tk's jpath): the importing file's own directory,
then Tanka's jpath from the highest precedence down: the environment base, `<root>/lib`,
`<base>/vendor`, `<root>/vendor`. `import "tk"` is Tanka's in-memory library, never a file.

Every candidate probed before the hit is recorded too: creating or deleting one of them changes
what the import means, which is exactly what the importers analysis needs for added and deleted
files. Scans are cached per file by (path, mtime, size), so repeated analyses of a big vendor tree
re-read only what changed.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tools.tanka.confined import ConfinedPaths, Outside
from tools.tanka.errors import go_quote
from tools.tanka.imports.scan import ImportKind, ImportRef, LexError, ScanResult, scan_imports
from tools.tanka.imports.scan_store import ScanStore, content_key
from tools.tanka.tk_library import TK_LIBRARY

__all__ = [
    "FileSystemSnapshot",
    "ImportGraph",
    "ImportKind",
    "ImportRef",
    "ImportScanner",
    "LexError",
    "Resolution",
    "ScanResult",
    "default_scanner",
    "environment_base",
    "jpath_for",
    "project_root",
    "resolve_import",
    "scan_imports",
    "search_path",
]

NOT_FOUND = "no match locally or in the Jsonnet library paths"
OUTSIDE = "the path leaves the repository; import only files inside it"
GIT_DIR = "the path is inside a .git directory, which imports may never read"


ENTRYPOINT = "main.jsonnet"
ROOT_MARKERS = ("tkrc.yaml", "jsonnetfile.json")


def search_path(root: Path, base: Path) -> tuple[Path, ...]:
    """The jpath after the importing file's directory, highest precedence first."""
    return (base, root / "lib", base / "vendor", root / "vendor")


def project_root(start: Path) -> Path | None:
    """tk's root: tkrc.yaml anywhere upward beats a nearer jsonnetfile.json (tanka.md 1.1)."""
    for marker in ROOT_MARKERS:
        for candidate in (start, *start.parents):
            if (candidate / marker).exists():
                return candidate
    return None


def environment_base(directory: Path, root: Path) -> Path | None:
    """The nearest directory from `directory` up to `root` holding a main.jsonnet."""
    for candidate in (directory, *directory.parents):
        if (candidate / ENTRYPOINT).exists():
            return candidate
        if candidate == root or not candidate.is_relative_to(root):
            break
    return None


def jpath_for(file: Path, checkout: Path | None = None) -> tuple[Path, tuple[Path, ...]]:
    """(confinement root, search path) for resolving the imports of a file of any kind.

    A file inside an environment resolves as that environment does; any other file (a library)
    uses its own directory as the base, which is how it resolves for every environment whose
    base does not shadow its imports.
    """
    found = project_root(file.parent)
    if checkout is not None and (found is None or not found.is_relative_to(checkout)):
        found = checkout
    root = found or file.parent
    base = environment_base(file.parent, root) or file.parent
    return (checkout or root), search_path(root, base)


@dataclass(frozen=True, slots=True)
class Resolution:
    ref: ImportRef
    importer: Path
    found: Path | None  # None: the tk library, or an error
    probed: tuple[Path, ...]  # every candidate looked at, the hit (if any) last
    error: str | None = None  # go-jsonnet's wording where it has one

    @property
    def message(self) -> str:
        # go-jsonnet's wording, which jsonnet-lint prints too (the path quoted as Go's %#v).
        return f"couldn't open import {go_quote(self.ref.path)}: {self.error}"


class FileSystemSnapshot:
    """stat() and path joins memoised for one analysis, during which the tree does not change.

    An importers run resolves the same vendor files once per environment; with this, each path
    is stat'ed once per run instead of once per environment.
    """

    def __init__(self) -> None:
        self._stats: dict[str, os.stat_result | None] = {}
        self._joined: dict[tuple[str, str], str] = {}
        self._confined: dict[str, ConfinedPaths] = {}
        self._leaves: dict[str, bool] = {}

    def stat(self, path: str) -> os.stat_result | None:
        if path not in self._stats:
            try:
                self._stats[path] = os.stat(path)
            except (FileNotFoundError, NotADirectoryError):
                self._stats[path] = None
        return self._stats[path]

    def leaves(self, path: str, confine: str) -> bool:
        """Whether `path`, lexically inside `confine`, leads out of it through a symlink; found
        without looking at anything outside (tools/tanka/confined.py)."""
        found = self._leaves.get(path)
        if found is None:
            found = self._leaves[path] = _leaves(path, self._paths(confine))
        return found

    def _paths(self, confine: str) -> ConfinedPaths:
        paths = self._confined.get(confine)
        if paths is None:
            paths = self._confined[confine] = ConfinedPaths(confine)
        return paths

    def join(self, directory: str, rel: str) -> str:
        key = (directory, rel)
        joined = self._joined.get(key)
        if joined is None:
            joined = self._joined[key] = os.path.normpath(os.path.join(directory, rel))
        return joined


def _leaves(path: str, paths: ConfinedPaths) -> bool:
    if path == paths.root:
        return False
    head = paths.directory(os.path.dirname(path))
    if isinstance(head, Outside):
        return True
    try:
        info = None if head.missing else os.lstat(path)
    except OSError:
        info = None
    return info is not None and stat.S_ISLNK(info.st_mode) and isinstance(paths.walk(path), Outside)


def _in_git_dir(candidate: str, confine: str | None) -> bool:
    inside = candidate[len(confine) :] if confine and candidate.startswith(confine) else candidate
    return any(part.casefold() == ".git" for part in inside.split(os.sep))


def _probe(
    importing_dir: str,
    rel: str,
    search: Sequence[str],
    confine: str | None,
    fs: FileSystemSnapshot,
) -> tuple[str | None, list[str], str | None]:
    """(found, probed candidates, error) for one import, as go-jsonnet's file importer looks."""
    probed: list[str] = []
    left = False
    for directory in (importing_dir, *search):
        candidate = fs.join(directory, rel)
        if confine is not None and not (
            candidate == confine or candidate.startswith(confine + os.sep)
        ):
            # go-jsonnet goes on to the next jpath entry when a candidate is missing; one that
            # leaves the root is never looked at, but a later entry may still hold the file
            # (e.g. `../../x` from an env found under `<env>/vendor/../../x`, which is lexical,
            # so the vendor directory need not exist).
            left = True
            if os.path.isabs(rel):
                break
            continue
        if confine is not None and fs.leaves(candidate, confine):
            left = True  # a symlink out: as the evaluator's importer, never looked through
            continue
        if _in_git_dir(candidate, confine):
            return None, probed, GIT_DIR  # as the evaluator's importer: .git is never read
        probed.append(candidate)
        info = fs.stat(candidate)
        if info is not None:
            if stat.S_ISDIR(info.st_mode):
                return None, probed, f"{os.path.basename(candidate)} is a directory"
            return candidate, probed, None
        if os.path.isabs(rel):
            break  # joining an absolute path gives the same candidate every time
    return None, probed, OUTSIDE if left else NOT_FOUND


def resolve_import(
    ref: ImportRef,
    importer: Path,
    search: Sequence[Path],
    *,
    confine: Path | None = None,
    fs: FileSystemSnapshot | None = None,
) -> Resolution:
    """Resolve one import of `importer` (an absolute path) like go-jsonnet's file importer."""
    if ref.path == TK_LIBRARY:
        return Resolution(ref, importer, None, ())
    found, probed, error = _probe(
        str(importer.parent),
        ref.path,
        [str(s) for s in search],
        None if confine is None else str(confine),
        fs or FileSystemSnapshot(),
    )
    return Resolution(
        ref, importer, None if found is None else Path(found), tuple(map(Path, probed)), error
    )


@dataclass(slots=True)
class ImportGraph:
    """The transitive imports of one entrypoint."""

    entrypoint: Path
    files: set[Path] = field(default_factory=set)  # entrypoint + every file reached
    resolutions: list[Resolution] = field(default_factory=list)
    lex_errors: dict[Path, LexError] = field(default_factory=dict)

    @property
    def unresolved(self) -> list[Resolution]:
        return [r for r in self.resolutions if r.error is not None]

    def probed(self) -> set[Path]:
        """Every path whose existence can change this entrypoint's result."""
        paths = set(self.files)
        for resolution in self.resolutions:
            paths.update(resolution.probed)
        return paths


class ImportScanner:
    """Scans files for imports, caching each result by (path, mtime, size); given a `store`
    (scan_store.py), also by content across processes."""

    def __init__(self, store: ScanStore | None = None) -> None:
        self._cache: dict[str, tuple[tuple[int, int], ScanResult]] = {}
        self._lock = threading.Lock()
        self.store = store

    def scan_file(self, path: Path | str, info: os.stat_result | None = None) -> ScanResult:
        key = str(path)
        info = info or os.stat(key)
        signature = (info.st_mtime_ns, info.st_size)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and cached[0] == signature:
            return cached[1]
        with open(key, "rb") as handle:
            data = handle.read()
        result = self._scan(data)
        with self._lock:
            self._cache[key] = (signature, result)
        return result

    def _scan(self, data: bytes) -> ScanResult:
        if self.store is None:
            return scan_imports(data.decode("utf-8", errors="replace"))
        content = content_key(data)
        result = self.store.get(content)
        if result is None:
            result = scan_imports(data.decode("utf-8", errors="replace"))
            self.store.put(content, result)
        return result

    def closure(
        self,
        entrypoint: Path,
        search: Sequence[Path],
        *,
        confine: Path | None = None,
        fs: FileSystemSnapshot | None = None,
    ) -> ImportGraph:
        """Follow `import` recursively; `importstr`/`importbin` targets are leaves."""
        graph = ImportGraph(entrypoint, {entrypoint})
        fs = fs or FileSystemSnapshot()
        for current, scan in self._walk(str(entrypoint), search, confine, fs):
            if scan.error is not None:
                graph.lex_errors[Path(current)] = scan.error
            for ref in scan.imports:
                resolution = resolve_import(ref, Path(current), search, confine=confine, fs=fs)
                graph.resolutions.append(resolution)
                if resolution.found is not None:
                    graph.files.add(resolution.found)
        return graph

    def dependency_paths(
        self,
        entrypoint: Path,
        search: Sequence[Path],
        *,
        confine: Path | None = None,
        fs: FileSystemSnapshot | None = None,
    ) -> set[str]:
        """`closure(...).probed()` as strings, without building the graph: the fast path."""
        paths = {str(entrypoint)}
        fs = fs or FileSystemSnapshot()
        for _ in self._walk(str(entrypoint), search, confine, fs, paths):
            pass  # the walk fills `paths`
        return paths

    def _walk(
        self,
        entrypoint: str,
        search: Sequence[Path],
        confine: Path | None,
        fs: FileSystemSnapshot,
        probed: set[str] | None = None,
    ) -> Generator[tuple[str, ScanResult], None, None]:
        """Yield each file reached through `import` with its scan; collect probed paths.

        Files are told apart by inode, so a symlink loop (vendor/x -> ..) cannot make endless
        new paths.
        """
        dirs = [str(s) for s in search]
        limit = None if confine is None else str(confine)
        info = os.stat(entrypoint)
        seen = {(info.st_dev, info.st_ino)}
        queue = [(entrypoint, info)]
        while queue:
            current, info = queue.pop()
            scan = self.scan_file(current, info)
            yield current, scan
            for ref in scan.imports:
                if ref.path == TK_LIBRARY:
                    continue
                found, candidates, _ = _probe(os.path.dirname(current), ref.path, dirs, limit, fs)
                if probed is not None:
                    probed.update(candidates)
                if found is None or ref.kind != "import":
                    continue
                found_info = fs.stat(found)
                if found_info is not None and (found_info.st_dev, found_info.st_ino) not in seen:
                    seen.add((found_info.st_dev, found_info.st_ino))
                    queue.append((found, found_info))


_DEFAULT = ImportScanner()


def default_scanner() -> ImportScanner:
    """The process-wide scanner, so every caller shares one cache."""
    return _DEFAULT
