"""jb init / install / update: resolve dependencies into vendor/ and keep the lock in step.

Semantics follow jb's install and update: a locked version beats the declared one until
`update`; a locked package whose files still hash to its sum is not fetched again; transitive
dependencies are resolved level by level and the first version met wins; dependencies' own
lock files are ignored; `single` packages get no nested dependencies. Two deliberate
improvements: every run is all-or-nothing (see stage.py), and a dependency cycle stops
instead of recursing forever.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from tools.jb import spec
from tools.jb.deps import Dependency, GitSource, LocalSource, parse_uri
from tools.jb.errors import JbError
from tools.jb.fetch import fetch_package
from tools.jb.gitrun import GitRunner
from tools.jb.stage import Stage, remove_stale_stages
from tools.jb.sum import hash_dir
from tools.jb.vendor import Housekeeping, tidy

VENDOR = "vendor"


@dataclass(frozen=True, slots=True)
class Download:
    name: str
    requested: str  # the version asked for (branch, tag, SHA; "" for local packages)
    locked: str  # the commit it resolved to
    dropped_links: tuple[str, ...] = ()


@dataclass(slots=True)
class InstallSummary:
    """What one install/update did: enough for a short, exact summary."""

    downloads: list[Download] = field(default_factory=list)
    old_locks: dict[str, Dependency] = field(default_factory=dict)
    new_locks: dict[str, Dependency] = field(default_factory=dict)
    housekeeping: Housekeeping = field(default_factory=Housekeeping)
    files_written: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _never() -> bool:
    return False


class Bundler:
    """jb for one project directory (the one holding jsonnetfile.json) inside a checkout."""

    def __init__(
        self,
        project: Path,
        *,
        root: Path | None = None,
        git: GitRunner | None = None,
        cancelled: Callable[[], bool] = _never,
    ) -> None:
        self.project = project
        self.root = (root or project).resolve()  # local packages must stay inside it
        self.vendor = project / VENDOR
        self.git = git or GitRunner()
        self.cancelled = cancelled
        self.jsonnetfile = project / spec.JSONNETFILE
        self.lockfile = project / spec.LOCKFILE

    # --- commands ---------------------------------------------------------------------------

    def init(self) -> None:
        if self.jsonnetfile.exists():
            raise JbError(f"{spec.JSONNETFILE} already exists; use jb_install to add packages")
        self.jsonnetfile.write_bytes(spec.init_content())

    def install(self, uris: Sequence[str] = ()) -> InstallSummary:
        declared_bytes = self._read_declared()
        declared = spec.parse(declared_bytes)
        lock_bytes = self.lockfile.read_bytes() if self.lockfile.exists() else b""
        locks = dict(spec.parse(lock_bytes, filename=spec.LOCKFILE).dependencies)
        outcome = InstallSummary(old_locks=dict(locks))
        for uri in uris:
            dep = parse_uri(uri, self.project)
            current = declared.dependencies.get(dep.name)
            if current is not None and current.same_target(dep):
                outcome.notes.append(f"{dep.name} is already declared at {dep.version or 'local'}")
                continue
            declared.add(dep)
            locks.pop(dep.name, None)  # install what was asked for, not what was locked
        declared = _without_default_legacy_names(declared)
        files: dict[Path, bytes] = {}
        if not spec.parse(declared_bytes).same_content(declared):
            files[self.jsonnetfile] = spec.dump(declared)
        return self._run(declared, locks, outcome, lock_bytes, files)

    def update(self, uris: Sequence[str] = ()) -> InstallSummary:
        declared = spec.parse(self._read_declared())
        if not self.lockfile.exists():
            raise JbError(
                f"no {spec.LOCKFILE} in {self._shown()}: nothing is installed yet; "
                "run jb_install first"
            )
        lock_bytes = self.lockfile.read_bytes()
        locks = dict(spec.parse(lock_bytes, filename=spec.LOCKFILE).dependencies)
        outcome = InstallSummary(old_locks=dict(locks))
        for uri in uris:
            name = parse_uri(uri, self.project).name
            if locks.pop(name, None) is None:
                outcome.notes.append(f"{name} is not installed, so there was nothing to update")
        if not uris:
            locks = {}
        return self._run(declared, locks, outcome, None, {})

    # --- the transaction --------------------------------------------------------------------

    def _run(
        self,
        declared: spec.JsonnetFile,
        locks: dict[str, Dependency],
        outcome: InstallSummary,
        lock_bytes: bytes | None,
        files: dict[Path, bytes],
    ) -> InstallSummary:
        remove_stale_stages(self.project)
        with Stage(self.project, self.vendor) as stage:
            resolved = _Resolver(self, stage, locks, outcome).run(declared)
            new_locks = [_without_default_legacy_name(d) for d in resolved.values()]
            outcome.housekeeping = tidy(
                stage.vendor, new_locks, legacy_imports=declared.legacy_imports
            )
            lock = spec.lockfile_of(new_locks)
            # install writes the lock only when it changed; update always rewrites it.
            if lock_bytes is None or not spec.parse(lock_bytes).same_content(lock):
                files[self.lockfile] = spec.dump(lock)
            self.check_cancelled()
            stage.commit(files)
        outcome.new_locks = {d.name: d for d in new_locks}
        outcome.files_written = [path.name for path in files]
        return outcome

    def _read_declared(self) -> bytes:
        if not self.jsonnetfile.is_file():
            raise JbError(
                f"no {spec.JSONNETFILE} in {self._shown()}; run jb_init there first "
                "(or give the directory that holds it)"
            )
        return self.jsonnetfile.read_bytes()

    def _shown(self) -> str:
        rel = os.path.relpath(self.project, self.root)
        return "the repository root" if rel == "." else rel + "/"

    def check_cancelled(self) -> None:
        if self.cancelled():
            raise JbError("cancelled: vendor/ and the jsonnetfiles were left unchanged")


def _without_default_legacy_name(dep: Dependency) -> Dependency:
    # jb's CleanLegacyName: a `name` equal to the computed legacy name is not worth writing.
    if dep.legacy_override and dep.legacy_override == dep.source.legacy_name:
        return replace(dep, legacy_override="")
    return dep


def _without_default_legacy_names(jf: spec.JsonnetFile) -> spec.JsonnetFile:
    cleaned = spec.JsonnetFile(legacy_imports=jf.legacy_imports)
    for dep in jf.dependencies.values():
        cleaned.add(_without_default_legacy_name(dep))
    return cleaned


class _Resolver:
    """jb's `ensure`: one level of dependencies at a time, sharing one lock map."""

    def __init__(
        self, bundler: Bundler, stage: Stage, locks: dict[str, Dependency], outcome: InstallSummary
    ) -> None:
        self.bundler = bundler
        self.stage = stage
        self.locks = locks
        self.outcome = outcome
        self.fresh: set[str] = set()  # fetched in this run: never fetched twice

    def run(self, declared: spec.JsonnetFile) -> dict[str, Dependency]:
        return self._level(list(declared.dependencies.values()), self.bundler.project, ())

    def _level(
        self, direct: list[Dependency], module_dir: Path, chain: tuple[str, ...]
    ) -> dict[str, Dependency]:
        resolved: dict[str, Dependency] = {}
        for dep in direct:
            self.bundler.check_cancelled()
            resolved[dep.name] = self._ensure(dep, module_dir)
        for dep in list(resolved.values()):
            if dep.single or dep.name in chain:  # a cycle: its packages are already resolved
                continue
            nested = self._nested(dep, module_dir)
            if nested is None:
                continue
            for name, sub in self._level(nested[0], nested[1], (*chain, dep.name)).items():
                resolved.setdefault(name, sub)
        return resolved

    def _ensure(self, dep: Dependency, module_dir: Path) -> Dependency:
        lock = self.locks.get(dep.name)
        if lock is not None:
            dep = replace(dep, version=lock.version)
            if dep.name in self.fresh or (not dep.is_local and self._intact(lock)):
                return lock
        target = _package_path(self.stage.vendor, dep.name)
        _remove_entry(target)
        locked = self._download(dep, module_dir)
        if lock is not None and lock.sum and locked.sum != lock.sum:
            raise JbError(
                f"checksum mismatch for {dep.name}: the lock says {lock.sum} but "
                f"{dep.source.remote if isinstance(dep.source, GitSource) else dep.name}"
                f" at {lock.version} gives {locked.sum}. The upstream content changed under the "
                f"same version; run jb_update with {dep.name} to accept it"
            )
        self.locks[dep.name] = locked
        self.fresh.add(dep.name)
        return locked

    def _intact(self, lock: Dependency) -> bool:
        path = self.stage.vendor / lock.name
        return bool(lock.sum) and path.is_dir() and hash_dir(path) == lock.sum

    def _download(self, dep: Dependency, module_dir: Path) -> Dependency:
        if isinstance(dep.source, LocalSource):
            return self._link_local(dep, dep.source, module_dir)
        fetched = fetch_package(self.bundler.git, dep.source, dep.version, self.stage.workdir())
        target = _package_path(self.stage.vendor, dep.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(fetched.path, target)
        self.outcome.downloads.append(
            Download(dep.name, dep.version, fetched.commit, fetched.dropped_links)
        )
        return dep.with_lock(fetched.commit, fetched.sum)

    def _link_local(self, dep: Dependency, source: LocalSource, module_dir: Path) -> Dependency:
        target = (module_dir / source.directory).resolve()
        if not target.is_relative_to(self.bundler.root) or not target.is_dir():
            raise JbError(
                f"local package {source.directory!r} (from {module_dir}) must be an existing "
                "directory inside the repository"
            )
        link = _package_path(self.stage.vendor, dep.name)
        # Relative to where vendor/ will be after the swap, not to the stage.
        os.symlink(os.path.relpath(target, self.bundler.vendor.resolve().parent / VENDOR), link)
        self.outcome.downloads.append(Download(dep.name, "", "local"))
        return dep.with_lock("", "")

    def _nested(self, dep: Dependency, module_dir: Path) -> tuple[list[Dependency], Path] | None:
        if isinstance(dep.source, LocalSource):
            package_dir = (module_dir / dep.source.directory).resolve()
        else:
            package_dir = self.stage.vendor / dep.name
        path = package_dir / spec.JSONNETFILE
        if not path.is_file():
            return None
        nested = spec.parse(path.read_bytes(), filename=f"{dep.name}/{spec.JSONNETFILE}")
        return list(nested.dependencies.values()), package_dir


def _package_path(vendor: Path, name: str) -> Path:
    """vendor/<name>, refusing a path that passes through a symlink (a local package's link)."""
    path = vendor
    for part in name.split("/")[:-1]:
        path = path / part
        if path.is_symlink():
            raise JbError(
                f"package {name!r} cannot be placed: vendor/{path.relative_to(vendor)} is the "
                "link of a local package; rename that local directory"
            )
    return vendor / name


def _remove_entry(path: Path) -> None:
    """Remove a package entry: a directory, or the symlink of a local package."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
