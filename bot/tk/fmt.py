"""`tanka-bot tk fmt`, with tk's flags: `-t/--test` (exit 16 when a file would change),
`--stdout` (every file's formatted text after a `// <name>` line, nothing written),
`-v/--verbose` (`fmt <file>` or `ok  <file>` as each is checked), `-e/--exclude` globs, and `-`
to format standard input; tk's closing message goes to stderr.

`-e` behaves as tk's string-slice flag: given once or more (or comma-separated), it replaces the
default globs (hidden files and vendor/) rather than adding to them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.tanka.source.fmt import DEFAULT_EXCLUDES, EXIT_WOULD_CHANGE, format_paths, format_source

STDIN = "-"


def excludes(given: list[str] | None) -> tuple[str, ...]:
    """tk's string-slice flag: the default unless given; each value split on commas."""
    if not given:
        return DEFAULT_EXCLUDES
    return tuple(glob for value in given for glob in value.split(",") if glob)


def fmt(args: argparse.Namespace) -> int:
    if args.paths == [STDIN]:
        text = sys.stdin.read()
        formatted = format_source(text, "<stdin>")
        sys.stdout.write(formatted)
        return EXIT_WOULD_CHANGE if args.test and formatted != text else 0

    def show(path: Path, text: str) -> None:
        sys.stdout.write(f"// {path}\n{text}")
        print(file=sys.stderr)  # tk's spacing

    def checked(path: Path, changes: bool) -> None:
        print("fmt" if changes else "ok ", path)

    report = format_paths(
        args.paths, test=args.test, excludes=excludes(args.exclude),
        out=show if args.stdout else None, checked=checked if args.verbose else None,
    )  # fmt: skip
    if args.verbose:
        print(file=sys.stderr)
    print(report.summary(), file=sys.stderr)
    return report.exit_code
