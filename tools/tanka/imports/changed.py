"""Which files differ between a commit and the working tree, and which environments that affects.

Files come from `git diff --name-status --no-renames <commit>` (a rename is a deletion plus an
addition, so both sides' importers are asked) plus untracked, not ignored files. The affected
environments are the union of two importers analyses (importers.py): over the working tree, with
deleted files as `deleted:`, and over the base tree, with added files as `deleted:` - so an
environment that stopped importing a file, or whose main.jsonnet is gone, is found as well as one
that started. Both are narrowed (importers.py, `narrow`): a file in no environment (a README at
the root) affects only the environments importing it, unless it is part of a chart or a
kustomization, which helmTemplate and kustomizeBuild read (then every environment).

Given the base tree's import index (index.py), the same answer without resolving anything in
either tree for most environments:
* an environment whose resolution at the base reads or probes a changed path is affected (what
  the analysis over the base tree finds), plus tk's location rules on both sides;
* any other environment resolves in the working tree exactly as at the base - it reads the same
  unchanged files and probes the same paths - unless a path it probed in vain at the base exists
  in the working tree without being a change (a file git ignores), or the environment is not in
  the base tree at all (an ignored main.jsonnet): only those few are resolved in the working
  tree, as the analysis over the working tree would.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tools.gitrun import Git, GitError
from tools.tanka.base_tree import GIT_TIMEOUT, BaseTrees, RevisionError, git, resolve_commit
from tools.tanka.imports.graph import ImportScanner
from tools.tanka.imports.importers import (
    envs_reading,
    find_entrypoints,
    importers,
    location_importers,
)
from tools.tanka.imports.index import ImportIndex, cached_index, update_index
from tools.tanka.imports.scan import scan_imports
from tools.tanka.imports.scan_store import FILE_NAME as SCANS_FILE
from tools.tanka.imports.scan_store import ScanStore


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
    untracked = git(repo, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    # An untracked file gone since git listed it (an atomic write's temporary file, renamed into
    # place meanwhile) is no change: reading it later would fail the whole analysis.
    return _name_status(repo, [commit], [p for p in untracked if p and os.path.lexists(repo / p)])


@dataclass(frozen=True, slots=True)
class CommitMove:
    """What differs between two commits of a repository (which may be bare)."""

    changes: FileChanges
    links: bool  # a changed path is a symlink or a submodule on either side
    # Only file contents differ: every changed path is a regular file of the same mode on both
    # sides. The two commits' trees then have the same shape - the same paths, of the same
    # types - so where environments are and what their imports find is alike in both but for
    # the contents of `changes.modified`.
    same_shape: bool

    @property
    def paths(self) -> list[str]:
        return sorted({*self.changes.added, *self.changes.modified, *self.changes.deleted})


_LINKS = ("120000", "160000")  # a symlink, a submodule
_REGULAR = ("100644", "100755")


def commit_move(repo: Path, old: str, new: str) -> CommitMove:
    """What differs between commits `old` and `new` of `repo`, from one `git diff --raw`."""
    fields = git(repo, "diff", "--raw", "--no-renames", "-z", old, new, "--").split("\0")
    added: set[str] = set()
    modified: set[str] = set()
    deleted: set[str] = set()
    links, same_shape = False, True
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.lstrip(":").split()
        if not path or len(parts) < 5:
            continue
        old_mode, new_mode, status = parts[0], parts[1], parts[4]
        links = links or old_mode in _LINKS or new_mode in _LINKS
        same_shape = same_shape and status == "M" and old_mode == new_mode in _REGULAR
        {"A": added, "D": deleted}.get(status, modified).add(path)
    changes = FileChanges(tuple(sorted(added)), tuple(sorted(modified)), tuple(sorted(deleted)))
    return CommitMove(changes, links, same_shape)


def _name_status(repo: Path, revisions: list[str], untracked: list[str]) -> FileChanges:
    added: set[str] = set(untracked)
    modified: set[str] = set()
    deleted: set[str] = set()
    fields = git(repo, "diff", "--name-status", "--no-renames", "-z", *revisions, "--").split("\0")
    for status, path in zip(fields[0::2], fields[1::2], strict=False):
        if status == "A":
            added.add(path)
        elif status == "D":
            deleted.add(path)
        elif status:
            modified.add(path)  # M, T (type change), U (unmerged)
    return FileChanges(tuple(sorted(added)), tuple(sorted(modified)), tuple(sorted(deleted)))


def affected_entrypoints(
    repo: Path,
    base_tree: Path,
    changes: FileChanges,
    index: ImportIndex | None = None,
    *,
    entrypoints: Iterable[str] | None = None,
) -> list[str]:
    """main.jsonnet files (relative to the repository) whose render the changes may alter.
    `index`: the base tree's import index, which spares resolving imports (module docstring).
    `entrypoints`: with an index, the entrypoints in `repo` when the caller knows them (spares
    a walk of the tree: index.entrypoints_after)."""
    if changes.empty:
        return []
    if index is not None:
        return _affected_by_index(repo, base_tree, changes, index, entrypoints)
    now = importers(repo, [*changes.added, *changes.modified], changes.deleted, narrow=True)
    before = importers(base_tree, [*changes.deleted, *changes.modified], changes.added, narrow=True)
    return sorted(set(_relative(now, repo)) | set(_relative(before, base_tree)))


def _affected_by_index(
    repo: Path,
    base_tree: Path,
    changes: FileChanges,
    index: ImportIndex,
    entrypoints: Iterable[str] | None,
) -> list[str]:
    now_top, base_top = Path(os.path.realpath(repo)), Path(os.path.realpath(base_tree))
    paths = [*changes.added, *changes.modified, *changes.deleted]
    found = index.readers(
        Path(os.path.relpath(os.path.realpath(base_top / p), base_top)).as_posix() for p in paths
    )
    now = location_importers(
        now_top, [*changes.added, *changes.modified], changes.deleted, narrow=True
    )
    before = location_importers(
        base_top, [*changes.deleted, *changes.modified], changes.added, narrow=True
    )
    found.update(_relative(now, now_top))
    found.update(_relative(before, base_top))
    if now_top == base_top:  # one tree the index describes: nothing else can differ
        return sorted(found)
    # Environments whose working-tree resolution may differ from the base for another reason.
    # (Environments share most of their probes: each path is looked at once.)
    probed = {m for env, deps in index.envs.items() if env not in found for m in deps.missing}
    there = {m for m in probed if os.path.lexists(os.path.join(now_top, m))}
    unsure = [
        now_top / env
        for env, deps in index.envs.items()
        if env not in found and not there.isdisjoint(deps.missing)
    ]
    if entrypoints is None:
        entrypoints = (e.relative_to(now_top).as_posix() for e in find_entrypoints(now_top))
    unsure += [now_top / env for env in entrypoints if env not in index.envs]
    if unsure:
        keys = {os.path.realpath(now_top / p) for p in paths}
        found.update(_relative(map(str, envs_reading(now_top, unsure, keys)), now_top))
    return sorted(found)


def base_index(trees: BaseTrees, commit: str, tree: Path, repo: Path | None = None) -> ImportIndex:
    """The import index of `commit`'s materialised `tree`, from disk when it was built before.
    Given the `repo` the commit is in, a new index is derived from the newest one stored for
    another commit when git can tell what differs (index.update_index): when the base branch
    moves, only what its new commits touched is read again. Files are lexed once per content
    across commits and processes (scan_store.py, beside the trees)."""
    scanner = ImportScanner(ScanStore(trees.cache_dir / SCANS_FILE))
    derive = None
    if repo is not None:
        known = repo

        def derive() -> ImportIndex | None:
            return _derived_index(trees, commit, tree, known, scanner)

    index = cached_index(tree, trees.sidecar(commit, "imports.json"), scanner, derive=derive)
    if scanner.store is not None:
        scanner.store.save()  # nothing to write when the index was on disk
    return index


def _derived_index(
    trees: BaseTrees, commit: str, tree: Path, repo: Path, scanner: ImportScanner
) -> ImportIndex | None:
    found = previous_index(trees, commit)
    # A tree holding a copy of an ignored vendor/ has files git cannot compare: build it whole.
    if found is None or any(trees.sidecar(c, "vendored").exists() for c in (found[0], commit)):
        return None
    try:
        changed = commit_changes(repo, found[0], commit)
    except RevisionError:
        return None
    if changed is None:
        return None
    return update_index(found[1], tree, changed, scanner, previous_tree=trees.existing(found[0]))


def previous_index(trees: BaseTrees, commit: str) -> tuple[str, ImportIndex] | None:
    """The newest import index stored for another commit than `commit`, with that commit."""
    suffix = ".imports.json"
    stored = [p for p in trees.cache_dir.glob(f"*{suffix}") if p.name != f"{commit}{suffix}"]
    newest = max(stored, key=_mtime, default=None)
    if newest is None:
        return None
    try:
        index = ImportIndex.from_json(newest.read_text(encoding="utf-8"))
    except OSError:
        return None
    return (newest.name.removesuffix(suffix), index) if index is not None else None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def commit_changes(repo: Path, old: str, new: str) -> list[str] | None:
    """The paths that differ between two commits of `repo`; None when one is a symlink or a
    submodule on either side (the import index records paths with symlinks resolved)."""
    move = commit_move(repo, old, new)
    return None if move.links else move.paths


def imports_alike(repo: Path, commit: str, tree: Path, paths: Iterable[str]) -> bool:
    """Whether each of `paths` (regular files in both) imports the same paths, in the same
    order, in `commit` of `repo` as in `tree`: then every import resolution reads and probes
    the same paths in both (index.update_index). The commit's files come from git: it may
    have no tree yet."""
    wanted = sorted(paths)
    blobs = _blobs(repo, commit, wanted) if wanted else []
    if blobs is None:
        return False
    try:
        pairs = zip(wanted, blobs, strict=True)
        return all(imported(b) == imported((tree / p).read_bytes()) for p, b in pairs)
    except OSError:
        return False


def _blobs(repo: Path, commit: str, paths: list[str]) -> list[bytes] | None:
    """The contents of `paths` in `commit`, in one `git cat-file --batch`; None if any is not
    a file there."""
    if any("\n" in p for p in paths):
        return None
    listing = "".join(f"{commit}:{p}\n" for p in paths).encode("utf-8", "surrogateescape")
    try:
        done = Git(repo, GIT_TIMEOUT).result("cat-file", "--batch", input_bytes=listing)
    except GitError:
        return None
    out, at, blobs = done.stdout, 0, []
    for _ in paths:
        header = out[at:].partition(b"\n")[0]
        fields = header.split()  # "<id> blob <size>", or "<name> missing"
        if not done.ok or len(fields) != 3 or fields[1] != b"blob":
            return None
        start = at + len(header) + 1
        at = start + int(fields[2]) + 1  # the content, then a newline
        blobs.append(out[start : at - 1])
    return blobs


def imported(data: bytes) -> list[tuple[str, str]]:
    """What a file imports, in order: all an import resolution follows of it."""
    return [(r.kind, r.path) for r in scan_imports(data.decode("utf-8", errors="replace")).imports]


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
    trees = trees or BaseTrees()
    tree = trees.tree(repo, full)
    index = base_index(trees, full, tree, repo)
    found = affected_entrypoints(repo, tree, changed_files(repo, full), index)
    return [rel for rel in found if (repo / rel).is_file()]
