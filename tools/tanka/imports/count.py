"""`tk tool importers-count DIR`: for each Jsonnet file in a directory, how many environments
import it (cmd/tk/tool.go and pkg/jsonnet/find_importers.go's CountImporters).

The files are those a walk of DIR meets, in tk's order and spelling: entries sorted by name,
subdirectories only with `recursive`, symlinks neither counted nor followed, `main.jsonnet`
skipped, and the path as walked (DIR joined with the names) matched anywhere by the filename
pattern (default: ending in .jsonnet or .libsonnet). Each count is the number of environments
`importers` names for that file alone; lines are "<path>: <count>", most imported first, then by
path. The pattern is compiled by RE2 itself, as tk's Go regexp is (tools/tanka/natives/regex.py):
POSIX and Unicode classes mean what they mean to tk, and a bad pattern gets Go's error text.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from tools.tanka.errors import ImportersError, NativeError
from tools.tanka.imports.graph import ENTRYPOINT
from tools.tanka.imports.importers import importers_of_each
from tools.tanka.natives.regex import compile_go

DEFAULT_PATTERN = r"^.*\.(jsonnet|libsonnet)$"


def count_importers(
    root: Path | str, directory: str, *, recursive: bool = False, filename_regex: str = ""
) -> list[tuple[str, int]]:
    """(file as walked, environments importing it), in tk's order."""
    try:
        pattern = compile_go(filename_regex or DEFAULT_PATTERN)
    except NativeError as exc:
        raise ImportersError(
            f"compiling filename regex: {exc}; pass a valid regular expression"
        ) from None
    if not os.path.lexists(directory):
        raise ImportersError(
            f"walking directory: {directory}: no such file or directory; pass the directory "
            "whose files to count"
        )
    files = [f for f in _walk(directory, recursive=recursive, top=True) if pattern.search(f)]
    files = [f for f in files if os.path.basename(f) != ENTRYPOINT]
    found = importers_of_each(root, [os.path.abspath(f) for f in files])
    counts = zip(files, map(len, found), strict=True)
    return sorted(counts, key=lambda item: (-item[1], item[0].encode()))


def format_counts(counts: list[tuple[str, int]]) -> str:
    """tk's output: one "<file>: <count>" line each, then the blank line of its Println."""
    return "".join(f"{file}: {count}\n" for file, count in counts) + "\n"


def _walk(path: str, *, recursive: bool, top: bool = False) -> Iterator[str]:
    """Regular files at or below `path` as Go's filepath.Walk meets them (names sorted, lstat:
    symlinks, the given one too, are not followed), descending only with `recursive`."""
    mode = os.lstat(path).st_mode
    if stat.S_ISREG(mode):
        yield path
    elif stat.S_ISDIR(mode) and (top or recursive):
        for name in sorted(os.listdir(path), key=os.fsencode):
            yield from _walk(os.path.normpath(os.path.join(path, name)), recursive=recursive)
