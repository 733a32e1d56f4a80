"""The copy of a chart that Helm renders: regular files only, every one read inside the project.

Helm follows symlinks when it loads a chart directory (it only logs "found symbolic link in
path"), so a committed `charts/app/env -> /proc/<pid>/environ` would put whatever it names into
`.Files.Get "env"`, and from there into the manifests, the proposal and the pull request. Helm
therefore never sees the chart itself: `confined_chart` walks it, resolves each entry one link at
a time inside the project (`ConfinedPaths`, as imports are), refuses the first one that leads
outside (or into `.git/`, or to something that is no file or directory) naming it and how to fix
it, and copies what it reads into a private temporary directory that holds no symlink at all.
Links that stay inside the project keep working: their content is copied.

Each file is opened without following a final symlink and, once open, the kernel's own name for
it (/proc/self/fd) must still be inside the project, so a tree changed between the walk and the
read cannot slip an outside file in.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from typing import NoReturn

from tools.tanka.confined import ConfinedPaths, Outside, within
from tools.tanka.errors import NativeError

# Helm refuses a chart archive that unpacks to more than this; a directory read through links
# could be far bigger, so the copy stops there too.
MAX_CHART_BYTES = 100 * 1024 * 1024
_FIX = (
    "replace the link with a copy of what it points to (committed inside the repository), "
    "or point it at a file inside the repository"
)


@contextlib.contextmanager
def confined_chart(chart: str, confine: str, fn: str = "helmTemplate") -> Iterator[str]:
    """A private copy of `chart` (an absolute path inside `confine`: a directory or an archive)
    for the duration of the block; NativeError naming the entry that cannot be copied."""
    copier = _Copier(ConfinedPaths(confine), chart, fn)
    with tempfile.TemporaryDirectory(prefix="tanka-bot-chart-") as tmp:
        dest = os.path.join(tmp, os.path.basename(chart.rstrip("/")) or "chart")
        copier.copy(os.path.normpath(chart), dest, ())
        yield dest


class _Copier:
    def __init__(self, paths: ConfinedPaths, chart: str, fn: str) -> None:
        self.paths = paths
        self.chart = os.path.relpath(chart, paths.root)
        self.fn = fn
        self.copied = 0

    def copy(self, path: str, dest: str, parents: tuple[str, ...], real: str = "") -> None:
        """Copy `path` (lexical, inside the project) to `dest`. `real` is its real path when the
        caller knows it (an entry of a resolved directory; it may still be a symlink), and
        `parents` are the real directories above it in this walk (a link back to one of them is
        a loop)."""
        info = self._lstat(path, real) if real else None
        if info is None or stat.S_ISLNK(info.st_mode):
            # Resolved one link at a time from the project root: nothing outside is looked at.
            found = self.paths.walk(path)
            if isinstance(found, Outside):
                self._refuse(path, f"leads outside the project directory, to {found.target}")
            if found.missing:
                self._refuse(path, "is a symbolic link to something that does not exist")
            real = found.real
            if _in_git_dir(real, self.paths.real_root):
                self._refuse(path, "leads into .git/, which is never read")
            info = self._lstat(path, real)
        if stat.S_ISDIR(info.st_mode):
            if real in parents:
                self._refuse(path, "leads back to a directory above it (a symbolic link loop)")
            self._copy_dir(path, real, dest, (*parents, real))
        elif stat.S_ISREG(info.st_mode):
            self._copy_file(path, real, dest)
        else:
            self._refuse(path, "is neither a file nor a directory", "remove it from the chart")

    def _copy_dir(self, path: str, real: str, dest: str, parents: tuple[str, ...]) -> None:
        os.mkdir(dest, 0o700)
        try:
            names = sorted(os.listdir(real))
        except OSError as exc:
            self._refuse(path, f"cannot be listed: {exc.strerror or exc}")
        for name in names:
            if name == ".git":  # a submodule's pointer: never chart content
                continue
            entry = os.path.join(path, name)
            self.copy(entry, os.path.join(dest, name), parents, os.path.join(real, name))

    def _lstat(self, path: str, real: str) -> os.stat_result:
        try:
            return os.lstat(real)
        except OSError as exc:
            self._refuse(path, f"cannot be read: {exc.strerror or exc}")

    def _copy_file(self, path: str, real: str, dest: str) -> None:
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            self._refuse(path, f"cannot be read: {exc.strerror or exc}")
        with os.fdopen(fd, "rb") as source:
            opened = os.readlink(f"/proc/self/fd/{fd}")
            info = os.fstat(fd)
            if not within(opened, self.paths.real_root) or not stat.S_ISREG(info.st_mode):
                self._refuse(path, f"changed while it was read (now {opened})")
            self.copied += info.st_size
            if self.copied > MAX_CHART_BYTES:
                raise NativeError(
                    f"{self.fn}: the chart {self.chart} holds more than "
                    f"{MAX_CHART_BYTES // (1024 * 1024)} MiB of files (counting what its links "
                    "lead to); Helm refuses charts that large: remove what it does not need"
                )
            with open(dest, "wb") as out:
                shutil.copyfileobj(source, out)

    def _refuse(self, path: str, why: str, fix: str = _FIX) -> NoReturn:
        shown = os.path.relpath(path, self.paths.root)
        raise NativeError(
            f"{self.fn}: the chart {self.chart} cannot be rendered: {shown} {why}; refused, "
            f"as Helm would read it into the manifests. Fix: {fix}"
        )


def _in_git_dir(real: str, real_root: str) -> bool:
    inside = real[len(real_root.rstrip("/")) :].casefold()
    return "/.git/" in inside + "/"
