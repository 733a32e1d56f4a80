"""jb's package checksum (`hashDir`), reproduced exactly and made safe to run on hostile trees.

The sum is base64 (with padding) of SHA-256 over the concatenated bytes of every non-directory
entry under the package, visited in Go `filepath.Walk` order: entries sorted by byte order,
depth first, directories interleaved by name. Names, modes and sizes do not enter the hash.
jb opens symlinks (following them); a symlink to a directory or a dangling one makes the read
fail, which silently ends the walk: the sum is then the hash of the bytes read so far.

Following a symlink must never read outside the tree the package came from, so a link that
resolves outside `confine` (by default the package itself) ends the walk like a dangling one,
as do FIFOs and devices (reading those could block or leak).
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from pathlib import Path

_CHUNK = 1 << 16


class _StopWalk(Exception):
    """jb's walk ends at the first entry it cannot read."""


def hash_dir(directory: Path, *, confine: Path | None = None) -> str:
    """The `sum` jb would record for the package in `directory`."""
    hasher = hashlib.sha256()
    limit = (confine or directory).resolve()
    try:
        mode = os.lstat(directory).st_mode
        if stat.S_ISDIR(mode):
            _walk(directory, hasher, limit)
        else:
            _feed(directory, hasher, limit)
    except (_StopWalk, FileNotFoundError):
        pass
    return base64.b64encode(hasher.digest()).decode("ascii")


def _walk(directory: Path, hasher: hashlib._Hash, limit: Path) -> None:
    try:
        names = sorted(os.listdir(directory), key=os.fsencode)
    except OSError as exc:
        raise _StopWalk from exc
    for name in names:
        path = directory / name
        try:
            mode = os.lstat(path).st_mode
        except OSError as exc:
            raise _StopWalk from exc
        if stat.S_ISDIR(mode):
            _walk(path, hasher, limit)
        else:
            _feed(path, hasher, limit)


def _feed(path: Path, hasher: hashlib._Hash, limit: Path) -> None:
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as exc:  # symlink loop
        raise _StopWalk from exc
    if real != limit and not real.is_relative_to(limit):
        raise _StopWalk  # a link out of the package tree: never read it
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:  # dangling link
        raise _StopWalk from exc
    if not stat.S_ISREG(mode):  # a directory (jb's read fails), FIFO or device
        raise _StopWalk
    with open(real, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            hasher.update(chunk)
