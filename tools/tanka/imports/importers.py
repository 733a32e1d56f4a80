"""`tk tool importers`: the environments (main.jsonnet files) affected by changes to files.

tk answers with a heuristic reverse lookup: it greps every Jsonnet file for import strings whose
base name matches the changed file. We answer forwards and exactly instead: each environment's
transitive imports are resolved along its real jpath (graph.py), and an environment is affected
when a changed file is one of the paths its resolution looked at - the file it imports, or a
candidate probed before it (so an added env-level vendor override, or a deleted file, counts).

Kept from tk on purpose (its `tool importers` command):
* every input file named main.jsonnet is its own importer, deleted ones included;
* a file outside `<root>/vendor` and `<root>/lib` belongs to the environment containing it (so a
  changed spec.json or README in an env affects that env), or, when it is in no environment, to
  every environment below its directory;
* `deleted:<path>` arguments name files that no longer exist;
* output: absolute, symlink-resolved paths, sorted, one per line.
Different on purpose: imports inside comments and strings do not count, and `importbin` does.

`narrow=True` (automatic diffs, changed.py) drops tk's "every environment below it" rule: a
file in no environment that nothing imports (a README at the root) cannot change a render, since
Jsonnet reads files only through imports, which the resolution sees. What else reads files is
helmTemplate and kustomizeBuild, with paths computed at evaluation time; so a file inside a chart
or a kustomization (a directory up to the root holding one of `INPUT_MARKERS`), wherever it is,
lib/ and vendor/ included, affects every environment. A tkrc.yaml or jsonnetfile.json keeps tk's
rule: it decides the root, so the jpath, of the environments below it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from tools.tanka.errors import ImportersError
from tools.tanka.imports.graph import (
    ENTRYPOINT,
    ROOT_MARKERS,
    FileSystemSnapshot,
    ImportScanner,
    default_scanner,
    environment_base,
    project_root,
    search_path,
)

DELETED_PREFIX = "deleted:"
# Files naming a directory helmTemplate (a chart) or kustomizeBuild (a kustomization) reads.
INPUT_MARKERS = ("Chart.yaml", "kustomization.yaml", "kustomization.yml", "Kustomization")


def importers(
    root: Path | str,
    files: Iterable[str | Path],
    deleted: Iterable[str | Path] = (),
    *,
    scanner: ImportScanner | None = None,
    narrow: bool = False,
) -> list[str]:
    """Absolute paths of the environments' main.jsonnet files that the files affect.

    Relative paths are taken relative to `root`. A `files` entry written `deleted:<path>` is a
    deleted file, the same as listing `<path>` in `deleted`.
    """
    top = _top(root)
    changed, gone = _split_deleted(files, deleted)
    targets = [_existing(top, f) for f in changed] + [_absolute(top, f) for f in gone]
    keys = {os.path.realpath(t) for t in targets}
    found: set[Path] = set()
    for target in targets:
        found.update(_by_location(top, target, narrow=narrow))
    found.update(envs_reading(top, find_entrypoints(top), keys, scanner))
    resolved = {os.path.realpath(p) for p in found}
    return sorted(p for p in resolved if os.path.basename(p) == ENTRYPOINT)


def importers_of_each(
    root: Path | str, files: Iterable[str | Path], *, scanner: ImportScanner | None = None
) -> list[list[str]]:
    """`importers(root, [file])` for each file on its own (tk's importers-count), with every
    environment's imports resolved once rather than once per file."""
    top = _top(root)
    targets = [_existing(top, str(f)) for f in files]
    real = _RealPaths()
    reads = [
        (env, {real(p) for p in paths})
        for env, paths in _dependency_paths(top, find_entrypoints(top), scanner)
    ]
    result: list[list[str]] = []
    for target in targets:
        key = real(str(target))
        found = set(_by_location(top, target)) | {env for env, keys in reads if key in keys}
        resolved = {real(str(p)) for p in found}
        result.append(sorted(p for p in resolved if os.path.basename(p) == ENTRYPOINT))
    return result


def location_importers(
    root: Path | str,
    files: Iterable[str | Path],
    deleted: Iterable[str | Path] = (),
    *,
    narrow: bool = False,
) -> list[str]:
    """`importers` without import resolution: only tk's rules for where a file is (an input
    main.jsonnet, the environment around a file). Same arguments and result form."""
    top = _top(root)
    changed, gone = _split_deleted(files, deleted)
    targets = [_existing(top, f) for f in changed] + [_absolute(top, f) for f in gone]
    found = {os.path.realpath(e) for t in targets for e in _by_location(top, t, narrow=narrow)}
    return sorted(p for p in found if os.path.basename(p) == ENTRYPOINT)


def _top(root: Path | str) -> Path:
    top = Path(os.path.abspath(root))
    if not top.is_dir():
        raise ImportersError(f"root {str(root)!r} is not a directory; pass the repository root")
    return top


def format_importers(paths: Iterable[str]) -> str:
    """tk's output text: one path per line (an empty result is an empty line)."""
    return "\n".join(paths) + "\n"


def find_entrypoints(directory: Path) -> Iterator[Path]:
    """Every main.jsonnet below directory; symlinked directories are not followed (as tk)."""
    for current, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        if ENTRYPOINT in names:
            yield Path(current) / ENTRYPOINT


def _split_deleted(
    files: Iterable[str | Path], deleted: Iterable[str | Path]
) -> tuple[list[str], list[str]]:
    changed: list[str] = []
    gone = [str(d).removeprefix(DELETED_PREFIX) for d in deleted]
    for item in map(str, files):
        if item.startswith(DELETED_PREFIX):
            gone.append(item.removeprefix(DELETED_PREFIX))
        else:
            changed.append(item)
    return changed, gone


def _absolute(root: Path, path: str) -> Path:
    if not path:
        raise ImportersError("an empty file name was given; name the changed files")
    return Path(os.path.normpath(root / path))


def _existing(root: Path, path: str) -> Path:
    absolute = _absolute(root, path)
    if not absolute.exists():
        raise ImportersError(
            f'file "{path}" does not exist; write deleted files as "deleted:{path}"'
        )
    return absolute


def _by_location(root: Path, target: Path, *, narrow: bool = False) -> list[Path]:
    """tk's rule for files that are not imported: they belong to the env around them
    (`narrow`: see the module docstring)."""
    if target.name == ENTRYPOINT:
        return [target]
    if narrow and _in_render_input(root, target.parent):
        return list(find_entrypoints(root))
    if _is_under(target, root / "vendor") or _is_under(target, root / "lib"):
        return []
    entrypoint = _enclosing_entrypoint(target.parent)
    if entrypoint is not None:
        return [entrypoint]
    if narrow and target.name not in ROOT_MARKERS:
        return []
    return list(find_entrypoints(target.parent)) if target.parent.is_dir() else []


def _in_render_input(root: Path, directory: Path) -> bool:
    """Whether `directory` is in a chart or a kustomization (a marker in it or above, up to
    `root`)."""
    if not _is_under(directory, root):
        return False
    for candidate in (directory, *directory.parents):
        if any((candidate / marker).is_file() for marker in INPUT_MARKERS):
            return True
        if candidate == root:
            break
    return False


def _enclosing_entrypoint(directory: Path) -> Path | None:
    """The main.jsonnet of the env containing directory (tk's FindRoot + FindBase)."""
    while not directory.exists() and directory != directory.parent:
        directory = directory.parent
    root = project_root(directory)
    base = environment_base(directory, root) if root is not None else None
    return base / ENTRYPOINT if base is not None else None


def envs_reading(
    root: Path, envs: Iterable[Path], keys: set[str], scanner: ImportScanner | None = None
) -> Iterator[Path]:
    """The entrypoints of `envs` whose import resolution (imports confined to `root`) reads or
    probes one of `keys` (absolute, symlink-resolved paths)."""
    real = _RealPaths()
    for env, paths in _dependency_paths(root, envs, scanner):
        if any(real(p) in keys for p in paths):
            yield env


def _dependency_paths(
    root: Path, envs: Iterable[Path], scanner: ImportScanner | None
) -> Iterator[tuple[Path, set[str]]]:
    """Each entrypoint with the paths its import resolution reads or probes (confined to
    `root`)."""
    scan = scanner or default_scanner()
    fs = FileSystemSnapshot()
    for env in envs:
        base = env.parent
        env_root = project_root(base) or root
        yield env, scan.dependency_paths(env, search_path(env_root, base), confine=root, fs=fs)


class _RealPaths:
    """os.path.realpath with a memo: environments share most of their (vendor) imports."""

    def __init__(self) -> None:
        self._memo: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        cached = self._memo.get(path)
        if cached is None:
            cached = self._memo[path] = os.path.realpath(path)
        return cached


def _is_under(path: Path, directory: Path) -> bool:
    return path == directory or path.is_relative_to(directory)
