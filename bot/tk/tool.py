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

from bot.errors import UserError
from bot.tk.common import git_toplevel, one_line
from tools.gitrun import Git, GitError
from tools.tanka.errors import TankaError
from tools.tanka.imports.count import count_importers, format_counts
from tools.tanka.imports.importers import DELETED_PREFIX, format_importers, importers
from tools.tanka.imports.transitive import format_imports, transitive_imports
from tools.tanka.project import resolve_env_paths


def importers_count(args: argparse.Namespace) -> int:
    counts = count_importers(
        args.root, args.dir, recursive=args.recursive, filename_regex=args.filename_regex
    )
    sys.stdout.write(format_counts(counts))
    return 0


def run_importers(args: argparse.Namespace) -> int:
    """tk's `tool importers` arguments: files relative to the working directory (checked first,
    with tk's text); a relative `deleted:` path is taken both from the working directory and
    from `--root`, since tk looks for both."""
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


def jpath(args: argparse.Namespace) -> int:
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


def imports(args: argparse.Namespace) -> int:
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
    if commit.startswith("-"):
        raise UserError(f"--check {commit!r}: give a commit, not an option")
    try:
        out = Git(top).out("diff-tree", "--no-commit-id", "--name-only", "-r", commit)
    except GitError as exc:
        raise UserError(f"invoking git: {exc}; give a commit of this repository") from None
    return [line for line in out.splitlines() if line]
