"""Which files a Jsonnet file imports, resolved the way `tk` resolves them, transitively.

Resolution order (reference/tanka.md 2.1): the importing file's own directory, then Tanka's jpath
from the highest precedence down: the environment base, `<root>/lib`, `<base>/vendor`,
`<root>/vendor`. `import "tk"` is Tanka's in-memory library, never a file.

Every candidate probed before the hit is recorded too: creating or deleting one of them changes
what the import means, which is exactly what the importers analysis needs for added and deleted
files. Scans are cached per file by (path, mtime, size), so repeated analyses of a big vendor tree
re-read only what changed.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tools.tanka.import_scan import ImportKind, ImportRef, LexError, ScanResult, scan_imports

__all__ = [
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

TK_LIBRARY = "tk"
NOT_FOUND = "no match locally or in the Jsonnet library paths"
OUTSIDE = "the path leaves the repository; import only files inside it"


ENTRYPOINT = "main.jsonnet"
_ROOT_MARKERS = ("tkrc.yaml", "jsonnetfile.json")


def search_path(root: Path, base: Path) -> tuple[Path, ...]:
    """The jpath after the importing file's directory, highest precedence first."""
    return (base, root / "lib", base / "vendor", root / "vendor")


def project_root(start: Path) -> Path | None:
    """tk's root: tkrc.yaml anywhere upward beats a nearer jsonnetfile.json (tanka.md 1.1)."""
    for marker in _ROOT_MARKERS:
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
        # go-jsonnet's wording, which jsonnet-lint prints too.
        return f"couldn't open import {json.dumps(self.ref.path)}: {self.error}"


def resolve_import(
    ref: ImportRef, importer: Path, search: Sequence[Path], *, confine: Path | None = None
) -> Resolution:
    """Resolve one import of `importer` (an absolute path) like go-jsonnet's file importer."""
    if ref.path == TK_LIBRARY:
        return Resolution(ref, importer, None, ())
    probed: list[Path] = []
    for directory in (importer.parent, *search):
        candidate = Path(os.path.normpath(directory / ref.path))
        if confine is not None and not candidate.is_relative_to(confine):
            return Resolution(ref, importer, None, tuple(probed), OUTSIDE)
        probed.append(candidate)
        kind = _file_kind(candidate)
        if kind == "file":
            return Resolution(ref, importer, candidate, tuple(probed))
        if kind == "dir":
            return Resolution(ref, importer, None, tuple(probed), f"{candidate} is a directory")
        if os.path.isabs(ref.path):
            break  # joining an absolute path gives the same candidate every time
    return Resolution(ref, importer, None, tuple(probed), NOT_FOUND)


def _file_kind(path: Path) -> str:
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    return "dir" if stat.S_ISDIR(mode) else "file"


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
    """Scans files for imports, caching each result by (path, mtime, size)."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[tuple[int, int], ScanResult]] = {}
        self._lock = threading.Lock()

    def scan_file(self, path: Path) -> ScanResult:
        info = path.stat()
        signature = (info.st_mtime_ns, info.st_size)
        with self._lock:
            cached = self._cache.get(path)
        if cached is not None and cached[0] == signature:
            return cached[1]
        text = path.read_bytes().decode("utf-8", errors="replace")
        result = scan_imports(text)
        with self._lock:
            self._cache[path] = (signature, result)
        return result

    def closure(
        self, entrypoint: Path, search: Sequence[Path], *, confine: Path | None = None
    ) -> ImportGraph:
        """Follow `import` recursively; `importstr`/`importbin` targets are leaves."""
        graph = ImportGraph(entrypoint, {entrypoint})
        queue = [entrypoint]
        # Keyed by real path: a symlink loop (vendor/x -> ..) must not make endless new paths.
        seen = {entrypoint.resolve()}
        while queue:
            current = queue.pop()
            scan = self.scan_file(current)
            if scan.error is not None:
                graph.lex_errors[current] = scan.error
            for resolution in self._resolve_all(scan.imports, current, search, confine):
                graph.resolutions.append(resolution)
                found = resolution.found
                if found is None:
                    continue
                graph.files.add(found)
                real = found.resolve()
                if resolution.ref.kind == "import" and real not in seen:
                    seen.add(real)
                    queue.append(found)
        return graph

    @staticmethod
    def _resolve_all(
        refs: Iterable[ImportRef], importer: Path, search: Sequence[Path], confine: Path | None
    ) -> Iterable[Resolution]:
        for ref in refs:
            yield resolve_import(ref, importer, search, confine=confine)


_DEFAULT = ImportScanner()


def default_scanner() -> ImportScanner:
    """The process-wide scanner, so every caller shares one cache."""
    return _DEFAULT
