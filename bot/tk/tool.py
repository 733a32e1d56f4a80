"""`tanka-bot tk tool ...`: tk's `tk tool` utilities, all read-only and cluster-less.

jpath, imports, importers (the same command as `tanka-bot tk importers`) and importers-count,
with tk's arguments and output; of `tk tool charts`, only `status` (bot.tk.charts): vendoring
Helm charts writes files and downloads, so it stays tk's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from bot.errors import UserError
from bot.tk import charts
from bot.tk.common import git_toplevel, one_line
from tools.tanka.errors import TankaError


def add_parser(cmds: Any) -> None:
    tool = cmds.add_parser("tool", help="handy utilities for working with Jsonnet, as tk tool")
    tools = tool.add_subparsers(dest="tool_command", required=True, metavar="TOOL_COMMAND")
    charts.add_charts(tools)
    jpath = tools.add_parser(
        "jpath",
        help="print the JSONNET_PATH of an environment (no final newline, as tk)",
        description="The import path tk uses for PATH's environment, joined with ':', lowest "
        "precedence first, as `tk tool jpath`.",
    )
    jpath.add_argument("path", metavar="PATH", help="an environment directory or file")
    jpath.add_argument(
        "-d", "--debug", action="store_true", help="also print main, rootDir, baseDir and jpath "
        "to stderr",
    )  # fmt: skip
    jpath.set_defaults(tk_handler=_jpath)
    imports = tools.add_parser(
        "imports",
        help="list all transitive imports of an environment (JSON)",
        description="Every file the environment at PATH imports, transitively, relative to the "
        "project root, as a JSON list, as `tk tool imports`.",
    )
    imports.add_argument("path", metavar="PATH")
    imports.add_argument(
        "-c", "--check", default="", metavar="COMMIT",
        help="say whether a file COMMIT changed is among the imports (exit 16 if so)",
    )  # fmt: skip
    imports.set_defaults(tk_handler=_imports)
    importers = tools.add_parser(
        "importers", help="environments that import the given files (as `tanka-bot tk importers`)"
    )
    importers.add_argument(
        "files", nargs="+", metavar="FILE", help="changed files; deleted:FILE if gone"
    )
    importers.add_argument("--root", default=".", help="repository root to search (default: .)")
    importers.set_defaults(tk_handler=run_importers)
    count = tools.add_parser(
        "importers-count",
        help="for each file in DIR, the number of environments that import it",
        description="For each Jsonnet file in DIR (main.jsonnet excepted), the number of "
        "environments that import it, most imported first, as `tk tool importers-count`.",
    )
    count.add_argument("dir", metavar="DIR")
    count.add_argument(
        "--root", default=".", help="root directory to search for environments (default: .)"
    )
    count.add_argument("--recursive", action="store_true", help="find files recursively")
    count.add_argument(
        "--filename-regex",
        default="",
        metavar="REGEX",
        help="only count files whose path matches (default: .jsonnet and .libsonnet files)",
    )
    count.set_defaults(tk_handler=_importers_count)


def _importers_count(args: argparse.Namespace) -> int:
    from tools.tanka.imports.count import count_importers, format_counts  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    counts = count_importers(
        args.root, args.dir, recursive=args.recursive, filename_regex=args.filename_regex
    )
    sys.stdout.write(format_counts(counts))
    return 0


def run_importers(args: argparse.Namespace) -> int:
    """tk's `tool importers` arguments: files relative to the working directory (checked first,
    with tk's text); a relative `deleted:` path is taken both from the working directory and
    from `--root`, since tk looks for both."""
    from tools.tanka.imports.importers import DELETED_PREFIX, format_importers, importers  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    root = os.path.abspath(args.root)
    files: list[str] = []
    for given in args.files:
        if not given.startswith(DELETED_PREFIX):
            if not os.path.exists(given):
                raise UserError(f"file {json.dumps(given, ensure_ascii=False)} does not exist")
            files.append(os.path.abspath(given))
            continue
        path = given.removeprefix(DELETED_PREFIX)
        if os.path.isabs(path):
            files.append(DELETED_PREFIX + path)  # tk ignores these; we take them as given
        elif path:
            files.append(DELETED_PREFIX + os.path.abspath(path))
            files.append(DELETED_PREFIX + os.path.normpath(os.path.join(root, path)))
    sys.stdout.write(format_importers(importers(root, files)))
    return 0


def _jpath(args: argparse.Namespace) -> int:
    from tools.tanka.project import resolve_env_paths  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    try:
        paths = resolve_env_paths(args.path)
    except TankaError as exc:
        raise UserError(f"resolving JPATH: {one_line(str(exc))}") from None
    jpath = [str(p) for p in paths.jpath()]
    if args.debug:
        # Go's Println of a []string: the elements between brackets, space-separated.
        print(f"main: {paths.entrypoint}", file=sys.stderr)
        print(f"rootDir: {paths.root}", file=sys.stderr)
        print(f"baseDir: {paths.base}", file=sys.stderr)
        print(f"jpath: [{' '.join(jpath)}]", file=sys.stderr)
    sys.stdout.write(":".join(jpath))
    return 0


REBUILD_EXIT = 16  # tk's exit status for "Rebuild required"


def _imports(args: argparse.Namespace) -> int:
    from tools.tanka.imports.transitive import format_imports, transitive_imports  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    top = git_toplevel(Path(args.path).absolute())
    try:
        found = transitive_imports(args.path, confine=top)
    except TankaError as exc:
        raise UserError(f"resolving imports: {one_line(str(exc))}") from None
    if not args.check:
        sys.stdout.write(format_imports(found.relative()))
        return 0
    if top is None:
        raise UserError(f"{args.path} is not in a git work tree; --check compares with a commit")
    imported = {str(f) for f in found.files}
    for changed in _changed_in(top, args.check):
        real = os.path.realpath(top / changed)
        if real in imported:
            dep = os.path.relpath(real, found.root)
            print(
                f"Rebuild required. File `{args.path}` imports `{dep}`, which has been changed "
                f"in `{args.check}`."
            )
            return REBUILD_EXIT
    print(f"Rebuild not required, because no imported files have been changed in `{args.check}`.")
    return 0


def _changed_in(top: Path, commit: str) -> list[str]:
    """The files `commit` changed (tk's `git diff-tree --no-commit-id --name-only -r`)."""
    from tools.gitrun import Git, GitError  # noqa: PLC0415 - tk start-up: git's helpers load when used

    if commit.startswith("-"):
        raise UserError(f"--check {commit!r}: give a commit, not an option")
    try:
        out = Git(top).out("diff-tree", "--no-commit-id", "--name-only", "-r", commit)
    except GitError as exc:
        raise UserError(f"invoking git: {exc}; give a commit of this repository") from None
    return [line for line in out.splitlines() if line]
