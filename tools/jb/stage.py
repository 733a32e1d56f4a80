"""All-or-nothing changes to vendor/ and the jsonnetfiles.

A `Stage` works on a copy of vendor/ (hard links: cheap, and safe because the installer only
ever removes, renames and creates entries, never writes into an existing file) inside a private
directory next to it, so renames stay on one filesystem. `commit` swaps the staged vendor in and
replaces the changed files; leaving the `with` block without committing, or any failure,
throws the stage away and leaves vendor/ and both files exactly as they were.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType

from tools.jb.errors import JbError
from tools.sandbox import atomic_write

STAGE_PREFIX = ".jb-stage-"
# Longer than any install may run (git timeouts included).
STALE_AFTER = 3600.0


class Stage:
    def __init__(self, project: Path, vendor: Path) -> None:
        self.project = project
        self.final_vendor = vendor
        self._dir = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=vendor.parent))
        self.vendor = self._dir / "vendor"
        self._fetches = 0

    def __enter__(self) -> Stage:
        try:
            self._copy_vendor()
        except BaseException:
            self.discard()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.discard()

    def discard(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)

    def workdir(self) -> Path:
        """A fresh directory for one fetch, on the same filesystem as vendor/."""
        self._fetches += 1
        path = self._dir / f"fetch-{self._fetches}"
        path.mkdir()
        return path

    def _copy_vendor(self) -> None:
        if self.final_vendor.is_symlink() or (
            self.final_vendor.exists() and not self.final_vendor.is_dir()
        ):
            raise JbError(
                f"{self.final_vendor.name} is not a plain directory (a symlink or file?); "
                "jb manages a real vendor/ directory, remove or rename it first"
            )
        if self.final_vendor.is_dir():
            shutil.copytree(
                self.final_vendor, self.vendor, symlinks=True, copy_function=_link_or_copy
            )
            _remove_symlinks(self.vendor)
        else:
            self.vendor.mkdir()

    def commit(self, files: Mapping[Path, bytes]) -> None:
        """Swap the staged vendor in and write `files`; on failure put the old vendor back."""
        old = self._dir / "old-vendor"
        had_vendor = self.final_vendor.is_dir()
        if had_vendor:
            os.rename(self.final_vendor, old)
        try:
            os.rename(self.vendor, self.final_vendor)
        except OSError:
            if had_vendor:
                os.rename(old, self.final_vendor)
            raise
        before = {path: path.read_bytes() if path.exists() else None for path in files}
        with _restore_on_error(self.final_vendor, old if had_vendor else None, before):
            for path, data in files.items():
                atomic_write(path, data)


def _remove_symlinks(vendor: Path) -> None:
    # Links (legacy names, local packages) are recreated after resolution; removing them first
    # means no package is ever written through one.
    for dirpath, dirnames, filenames in os.walk(vendor):
        for name in (*dirnames, *filenames):
            path = Path(dirpath, name)
            if path.is_symlink():
                path.unlink()


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


@contextlib.contextmanager
def _restore_on_error(
    vendor: Path, old: Path | None, files: Mapping[Path, bytes | None]
) -> Iterator[None]:
    try:
        yield
    except BaseException:
        shutil.rmtree(vendor, ignore_errors=True)
        if old is not None:
            os.rename(old, vendor)
        for path, data in files.items():
            if data is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write(path, data)
        raise


def remove_stale_stages(parent: Path, *, older_than: float = STALE_AFTER) -> None:
    """Stages a killed process left behind; young ones may belong to a running install."""
    cutoff = time.time() - older_than
    for entry in parent.glob(STAGE_PREFIX + "*"):
        if entry.is_dir() and not entry.is_symlink() and entry.stat().st_mtime < cutoff:
            shutil.rmtree(entry, ignore_errors=True)
