"""`tanka-bot tk tool ...`: tk's `tk tool` utilities that need no cluster.

importers-count here; the other read-only tools register beside it (see add_parser).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(cmds: Any) -> None:
    tool = cmds.add_parser("tool", help="handy utilities for working with Jsonnet, as tk tool")
    tools = tool.add_subparsers(dest="tool_command", required=True, metavar="TOOL_COMMAND")
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
    from tools.tanka.imports.count import count_importers, format_counts

    counts = count_importers(
        args.root, args.dir, recursive=args.recursive, filename_regex=args.filename_regex
    )
    sys.stdout.write(format_counts(counts))
    return 0
