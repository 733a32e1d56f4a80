"""vendor/ housekeeping after resolution, as jb's `Ensure` does it.

1. Directories no locked package accounts for are removed. "Accounts for" is jb's plain string
   prefix test in both directions, so `github.com` (a prefix of every GitHub package) and
   `github.com/ksonnet/ksonnet` (a prefix of `github.com/ksonnet/ksonnet-lib`) both stay.
2. Every symlink under vendor/ is removed, except the links of local packages.
3. With `legacyImports`, each git package gets `vendor/<legacy name> -> <name>`; a name
   already taken by another link or a real entry is skipped with a warning (first wins).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tools.jb.deps import Dependency


@dataclass(slots=True)
class Housekeeping:
    cleaned: list[str] = field(default_factory=list)
    linked: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def known(locks: Iterable[Dependency], rel: str) -> bool:
    return any(rel.startswith(dep.name) or dep.name.startswith(rel) for dep in locks)


def tidy(vendor: Path, locks: list[Dependency], *, legacy_imports: bool) -> Housekeeping:
    done = Housekeeping()
    _remove_unknown_dirs(vendor, locks, done)
    _remove_symlinks(vendor, locks)
    if legacy_imports:
        _link_legacy(vendor, locks, done)
    return done


def _remove_unknown_dirs(vendor: Path, locks: list[Dependency], done: Housekeeping) -> None:
    for dirpath, dirnames, _files in os.walk(vendor):
        keep = []
        for name in sorted(dirnames):
            path = Path(dirpath, name)
            rel = path.relative_to(vendor).as_posix()
            if path.is_symlink() or known(locks, rel):
                keep.append(name)
                continue
            shutil.rmtree(path)
            if not rel.startswith(".tmp"):
                done.cleaned.append(rel)
        dirnames[:] = keep


def _remove_symlinks(vendor: Path, locks: list[Dependency]) -> None:
    local_links = {vendor / dep.name for dep in locks if dep.is_local}
    for dirpath, dirnames, filenames in os.walk(vendor):
        for name in (*dirnames, *filenames):
            path = Path(dirpath, name)
            if path.is_symlink() and path not in local_links:
                path.unlink()


def _link_legacy(vendor: Path, locks: list[Dependency], done: Housekeeping) -> None:
    for dep in locks:
        if dep.is_local:
            continue
        link = vendor / dep.legacy_name
        if link.is_symlink():
            done.warnings.append(
                f"cannot link {dep.name!r} to vendor/{dep.legacy_name}: package "
                f"{os.readlink(link)!r} already uses that name; the absolute import still works"
            )
        elif link.exists():
            done.warnings.append(
                f"cannot link {dep.name!r} to vendor/{dep.legacy_name}: that file/directory "
                "already exists; the absolute import still works"
            )
        else:
            os.symlink(dep.name, link)
            done.linked.append(dep.legacy_name)
