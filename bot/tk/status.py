"""`tanka-bot tk status PATH`: tk status without the cluster (tools/tanka/status.py).

tk's flags: --name and the Jsonnet variables; -t is accepted and, as in tk's status, not applied.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.tk import flags
from bot.tk.common import env_path_errors, eval_settings


def add_parser(cmds: Any) -> None:
    status = cmds.add_parser(
        "status",
        help="an environment's spec and resources, as tk status without the cluster lines",
    )
    status.add_argument("env_path", metavar="PATH")
    flags.add_workflow_flags(status)
    flags.add_jsonnet_flags(status)
    status.set_defaults(tk_handler=run)


def run(args: argparse.Namespace) -> int:
    from tools.tanka.env.loader import load_environment  # noqa: PLC0415 - tk start-up: the engine loads when a command runs
    from tools.tanka.pipeline.render import process_loaded  # noqa: PLC0415 - tk start-up: the engine loads when a command runs
    from tools.tanka.status import format_status  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    with env_path_errors(args.env_path):
        settings = flags.with_variables(eval_settings(args.env_path), args)
        loaded = load_environment(args.env_path, name=args.name or None, settings=settings)
    sys.stdout.write(format_status(loaded.env, process_loaded(loaded)))
    return 0
