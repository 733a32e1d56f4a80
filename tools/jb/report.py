"""Short, exact summaries of what a jb command did or what is installed, for the model."""

from __future__ import annotations

from pathlib import Path

from tools.jb import spec
from tools.jb.deps import Dependency
from tools.jb.install import VENDOR, InstallSummary
from tools.jb.sum import hash_dir

SHORT_SHA = 12


def _short(version: str) -> str:
    is_sha = len(version) >= 40 and all(c in "0123456789abcdef" for c in version)
    return version[:SHORT_SHA] if is_sha else (version or "local")


def describe_outcome(verb: str, where: str, outcome: InstallSummary) -> str:
    lines = [_headline(verb, where, outcome)]
    for dl in outcome.downloads:
        if dl.locked == "local":
            lines.append(f"  linked local package {dl.name}")
        else:
            lines.append(f"  fetched {dl.name} @ {dl.requested} -> commit {dl.locked}")
        if dl.dropped_links:
            lines.append(
                f"    (symlinks inside the package removed: {', '.join(dl.dropped_links)})"
            )
    lines += _lock_changes(outcome.old_locks, outcome.new_locks)
    house = outcome.housekeeping
    if house.cleaned:
        lines.append(f"Removed from {VENDOR}/ (no longer locked): " + ", ".join(house.cleaned))
    lines += [f"Note: {note}" for note in outcome.notes]
    lines += [f"Warning: {warning}" for warning in house.warnings]
    return "\n".join(lines)


def _headline(verb: str, where: str, outcome: InstallSummary) -> str:
    files = " and ".join(outcome.files_written) or "no files"
    if not outcome.downloads and not outcome.files_written and not outcome.housekeeping.cleaned:
        count = len(outcome.new_locks)
        return (
            f"jb {verb} in {where}: nothing changed; {count} package(s) already at their "
            "locked versions."
        )
    return f"jb {verb} in {where}: {len(outcome.downloads)} package(s) fetched; wrote {files}."


def _lock_changes(old: dict[str, Dependency], new: dict[str, Dependency]) -> list[str]:
    changes = []
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before is None and after is not None:
            changes.append(f"  + {name} {_short(after.version)}")
        elif after is None and before is not None:
            changes.append(f"  - {name} (was {_short(before.version)})")
        elif before is not None and after is not None and before != after:
            changes.append(f"  ~ {name} {_short(before.version)} -> {_short(after.version)}")
    return [f"{spec.LOCKFILE} changes:", *changes] if changes else []


def describe_installed(project: Path, where: str) -> str:
    declared = spec.parse((project / spec.JSONNETFILE).read_bytes())
    lock_path = project / spec.LOCKFILE
    lock_bytes = lock_path.read_bytes() if lock_path.exists() else b""
    locks = spec.parse(lock_bytes, filename=spec.LOCKFILE).dependencies
    vendor = project / VENDOR
    legacy = "on" if declared.legacy_imports else "off"
    lines = [
        f"{where}{spec.JSONNETFILE}: {len(declared.dependencies)} direct, legacy imports {legacy}"
    ]
    if not declared.dependencies and not locks:
        return lines[0] + "; no dependencies (add some with jb_install)."
    for dep in declared.sorted_dependencies():
        lock = locks.get(dep.name)
        locked = f"locked {_short(lock.version)}" if lock else "not locked"
        status = _status(vendor, lock) if lock else "not installed: run jb_install"
        lines.append(f"  {dep.name} declared {dep.version or 'local'}, {locked}, {status}")
    transitive = [d for name, d in sorted(locks.items()) if name not in declared.dependencies]
    if transitive:
        lines.append("transitive (locked only):")
        lines += [
            f"  {d.name} locked {_short(d.version)}, {_status(vendor, d)}" for d in transitive
        ]
    return "\n".join(lines)


def _status(vendor: Path, lock: Dependency) -> str:
    path = vendor / lock.name
    if lock.is_local:
        return "local link present" if path.exists() else "local link missing: run jb_install"
    if not path.is_dir():
        return "missing from vendor/: run jb_install"
    if hash_dir(path) != lock.sum:
        return "vendor/ files differ from the locked sum: run jb_install to restore them"
    return "vendor/ matches the lock"
