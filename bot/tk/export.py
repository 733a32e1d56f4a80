"""`tanka-bot tk export OUT_DIR PATH...`: tk export's flags on the in-process engine."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.tk import flags
from tools.tanka.errors import MultipleEnvsError
from tools.tanka.export import files as export_files


def add_parser(cmds: Any) -> None:
    export = cmds.add_parser("export", help="write manifests to files, as tk export")
    export.add_argument("out_dir", metavar="OUT_DIR")
    export.add_argument("env_paths", nargs="+", metavar="PATH")
    export.add_argument(
        "--format", default=export_files.DEFAULT_FORMAT, help="file name template (tk's default)"
    )
    export.add_argument("--extension", default=export_files.DEFAULT_EXTENSION)
    export.add_argument(
        "-r", "--recursive", action="store_true", help="look recursively for environments"
    )
    export.add_argument(
        "--merge-strategy", default="", help="'fail-on-conflicts' or 'replace-envs'"
    )
    export.add_argument("--merge", action="store_true", help=argparse.SUPPRESS)  # deprecated
    export.add_argument(
        "--merge-deleted-envs",
        action="append",
        default=[],
        metavar="MAIN_FILE",
        help="entrypoints deleted since the last export: their files are removed",
    )
    export.add_argument("--skip-manifest", action="store_true", help="write no manifest.json")
    flags.add_workflow_flags(export)
    flags.add_selector_flag(export)
    flags.add_jsonnet_flags(export)
    export.set_defaults(tk_handler=run)


def run(args: argparse.Namespace) -> int:
    from bot.tk.cli import eval_settings
    from tools.tanka.export.run import (
        ExportOptions,
        export_environments,
        merge_strategy,
        select_environments,
    )

    options = ExportOptions(
        format=args.format,
        extension=args.extension,
        recursive=args.recursive,
        name=args.name,
        targets=flags.targets(args),
        selector=flags.selector_text(args),
        merge_strategy=merge_strategy(args.merge_strategy, deprecated_merge=args.merge),
        merge_deleted_envs=tuple(args.merge_deleted_envs),
        skip_manifest=args.skip_manifest,
    )
    settings = flags.with_variables(eval_settings(args.env_paths[0]), args)
    try:
        envs = select_environments(args.env_paths, options, settings)
    except MultipleEnvsError:
        from tools.tanka.export.run import MULTIPLE_ENVS_HINT

        print(MULTIPLE_ENVS_HINT, file=sys.stdout)
        raise
    export_environments(args.out_dir, envs, options, settings)
    return 0
