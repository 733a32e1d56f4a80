"""`tanka-bot tk lint`, with tk's flags: `-e/--exclude` (as fmt's), `-n/--parallelism` (checked
as tk checks it; files are linted one after another here, sharing the trees of the files they
import) and the deprecated `-v`. It prints what tk prints: go-jsonnet's text for each finding
(`/abs/main.jsonnet:1:7-22 Unused variable: unused`, then the source it points at) on stdout
and, when there is any, exits 1 with tk's "Linting has failed for at least one file".
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from bot.errors import UserError
from bot.tk.common import git_toplevel
from bot.tk.fmt import excludes
from tools.tanka.source.lint import lint_paths


def lint(args: argparse.Namespace) -> int:
    if args.parallelism <= 0:
        raise UserError("parallelism must be greater than 0")
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        raise UserError(f"{missing[0]}: no such file or directory; give existing files or dirs")
    # Imports are confined as `tk show` confines them (bot.tk.flags.eval_settings): to the git
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
