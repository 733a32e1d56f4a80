"""`tk fmt`: format Jsonnet files in place, or with `test=True` only report those that would change.

Differences from tk, on purpose: nothing is written unless every file formats (tk stops at the first
parse error after writing the earlier files), unchanged files are not rewritten, and all parse
errors are reported at once.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tools.tanka.errors import FormatError, FormatterUnavailable
from tools.tanka.source.formatter import FormatFn, default_formatter, format_source

__all__ = [
    "DEFAULT_EXCLUDES",
    "EXIT_WOULD_CHANGE",
    "FormatError",
    "FormatReport",
    "FormatterUnavailable",
    "find_jsonnet_files",
    "format_paths",
    "format_source",
]

# tk fmt's default --exclude globs; `*` crosses `/` as in tk's glob library.
DEFAULT_EXCLUDES = ("**/.*", ".*", "**/vendor/**", "vendor/**")
# tk's ExitStatusDiff, used by `tk fmt --test` when a file is not formatted.
EXIT_WOULD_CHANGE = 16
JSONNET_SUFFIXES = (".jsonnet", ".libsonnet")


@dataclass(frozen=True, slots=True)
class FormatReport:
    checked: tuple[Path, ...]
    changed: tuple[Path, ...]  # written, or with test=True: would be
    test: bool

    @property
    def exit_code(self) -> int:
        return EXIT_WOULD_CHANGE if self.test and self.changed else 0

    def summary(self) -> str:
        """tk fmt's closing message."""
        if self.test and self.changed:
            names = "\n".join(str(p) for p in self.changed)
            return f"The following files are not properly formatted:\n{names}"
        if not self.changed:
            return "All discovered files are already formatted. No changes were made"
        return f"Formatted {len(self.changed)} files"


def find_jsonnet_files(target: Path, excludes: Iterable[str] = DEFAULT_EXCLUDES) -> list[Path]:
    """A file as given; a directory's .jsonnet/.libsonnet files minus the excluded ones."""
    if not target.exists():
        raise FormatError(f"{target}: no such file or directory; give existing files or dirs")
    if not target.is_dir():
        return [target]
    patterns = tuple(excludes)
    return [p for p in _walk(target) if not _excluded(target, p, patterns)]


def format_paths(
    paths: Iterable[str | Path],
    test: bool = False,
    *,
    excludes: Iterable[str] = DEFAULT_EXCLUDES,
    formatter: FormatFn | None = None,
    out: Callable[[Path, str], None] | None = None,
    checked: Callable[[Path, bool], None] | None = None,
) -> FormatReport:
    """Format every Jsonnet file under paths; raise FormatError listing every file that fails.

    `out`, when given, receives every file's formatted text instead of the file being written
    (tk fmt --stdout); `checked` hears of each file as it is checked and whether it changes
    (tk fmt -v)."""
    fmt = formatter or default_formatter()
    patterns = tuple(excludes)
    files = [f for p in paths for f in find_jsonnet_files(Path(p), patterns)]
    updates: dict[Path, str] = {}
    errors: list[str] = []
    for file in files:
        try:
            original = file.read_text(encoding="utf-8")
            formatted = format_source(original, str(file), formatter=fmt)
        except FormatterUnavailable:
            raise
        except (FormatError, OSError, UnicodeDecodeError) as exc:
            errors.append(str(exc))
            continue
        if formatted != original:
            updates[file] = formatted
        if checked is not None:
            checked(file, formatted != original)
        if out is not None and not test:
            out(file, formatted)
    if errors:
        raise FormatError("\n".join(errors))
    if not test and out is None:
        for file, text in updates.items():
            file.write_text(text, encoding="utf-8")
    return FormatReport(tuple(files), tuple(updates), test)


def _walk(directory: Path) -> Iterator[Path]:
    for current, dirs, names in os.walk(directory):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(JSONNET_SUFFIXES):
                yield Path(current) / name


def _excluded(top: Path, path: Path, patterns: tuple[str, ...]) -> bool:
    # tk matches the walked path, which starts with the argument as given, so `tk fmt ../repo`
    # or a checkout under ~/.cache matches `.*` and excludes everything. We match the path below
    # the argument instead: hidden and vendor directories inside it are still skipped.
    rel = path.relative_to(top).as_posix()
    return any(fnmatch.fnmatchcase(rel, pattern) for pattern in patterns)
