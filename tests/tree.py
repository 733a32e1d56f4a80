"""Checksums of a directory tree, to prove a change touched nothing it must not."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def digest_tree(root: Path) -> dict[str, str]:
    """Every entry below `root` (symlinks not followed): sha256 of files, link targets, dirs."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (*dirnames, *filenames):
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = "-> " + os.readlink(path)
            elif path.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def changed_entries(before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    """What differs: 'added', 'removed' or 'modified' per path."""
    changes = dict.fromkeys(before.keys() - after.keys(), "removed")
    changes |= dict.fromkeys(after.keys() - before.keys(), "added")
    changes |= {p: "modified" for p in before.keys() & after.keys() if before[p] != after[p]}
    return changes
