"""`tanka-bot tk fmt` and `tanka-bot tk lint`, with tk's flags.

fmt: `-t/--test` (exit 16 when a file would change), `--stdout` (every file's formatted text
after a `// <name>` line, nothing written), `-v/--verbose` (`fmt <file>` or `ok  <file>` as each
is checked), `-e/--exclude` globs, and `-` to format standard input; tk's closing message goes
to stderr. lint: `-e/--exclude`, `-n/--parallelism` (checked as tk checks it; files are linted
one after another here, sharing the trees of the files they import) and the deprecated `-v`; it
prints what tk prints: go-jsonnet's text for each finding (`/abs/main.jsonnet:1:7-22 Unused
variable: unused`, then the source it points at) on stdout and, when there is any, exits 1 with
tk's "Linting has failed for at least one file".

`-e` behaves as tk's string-slice flag: given once or more (or comma-separated), it replaces the
default globs (hidden files and vendor/) rather than adding to them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from bot.errors import UserError
from bot.tk.common import git_toplevel

STDIN = "-"


def add_fmt_parser(cmds: Any) -> None:
    fmt = cmds.add_parser("fmt", help="format Jsonnet files in place")
    fmt.add_argument("paths", nargs="+", metavar="PATH", help="files or directories; - for stdin")
    fmt.add_argument("-t", "--test", action="store_true", help="exit 16 when changes would be made")
    fmt.add_argument(
        "--stdout", action="store_true", help="print formatted contents instead of writing them"
    )
    fmt.add_argument("-v", "--verbose", action="store_true", help="print each checked file")
    _add_exclude(fmt)
    fmt.set_defaults(tk_handler=_fmt)


def add_lint_parser(cmds: Any) -> None:
    lint = cmds.add_parser("lint", help="validate Jsonnet files (go-jsonnet's linter)")
    lint.add_argument("paths", nargs="+", metavar="PATH")
    _add_exclude(lint)
    lint.add_argument(
        "-n", "--parallelism", type=int, default=4, help="accepted as tk's (must be > 0)"
    )
    lint.add_argument("-v", "--verbose", action="store_true", help="deprecated in tk; unused")
    lint.set_defaults(tk_handler=_lint)


def _add_exclude(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-e", "--exclude", action="append", metavar="GLOBS",
        help="globs to exclude (default: **/.*, .*, **/vendor/**, vendor/**)",
    )  # fmt: skip


def excludes(given: list[str] | None) -> tuple[str, ...]:
    """tk's string-slice flag: the default unless given; each value split on commas."""
    from tools.tanka.source.fmt import DEFAULT_EXCLUDES  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    if not given:
        return DEFAULT_EXCLUDES
    return tuple(glob for value in given for glob in value.split(",") if glob)


def _fmt(args: argparse.Namespace) -> int:
    from tools.tanka.source.fmt import EXIT_WOULD_CHANGE, format_paths, format_source  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

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


def _lint(args: argparse.Namespace) -> int:
    from tools.tanka.source.lint import lint_paths  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    if args.parallelism <= 0:
        raise UserError("parallelism must be greater than 0")
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        raise UserError(f"{missing[0]}: no such file or directory; give existing files or dirs")
    # Imports are confined as `tk show` confines them (bot/tk/cli.py eval_settings): to the git
    # work tree holding each path, since a project's vendored symlinks may point elsewhere in it
    # (Tempo's do); outside git, to the file's project.
    by_work_tree: dict[Path | None, list[str]] = {}
    for path in args.paths:
        by_work_tree.setdefault(git_toplevel(Path(path).absolute()), []).append(path)
    diagnostics = [
        found
        for work_tree, paths in by_work_tree.items()
        for found in lint_paths(
            paths, root=work_tree, excludes=excludes(args.exclude), absolute_names=True
        )
    ]
    # tk's output: jsonnet-lint's text on stdout, files named by absolute path, then its error.
    sys.stdout.write("".join(d.gojsonnet for d in diagnostics))
    if diagnostics:
        raise UserError("Linting has failed for at least one file")
    return 0
