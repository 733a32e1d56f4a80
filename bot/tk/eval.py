"""`tanka-bot tk eval PATH [-e EXPR]`: tk eval on the in-process engine."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.tk import flags
from bot.tk.common import eval_settings


def add_parser(cmds: Any) -> None:
    evaluate = cmds.add_parser("eval", help="evaluate an environment's Jsonnet to JSON")
    evaluate.add_argument("path", metavar="PATH")
    evaluate.add_argument(
        "-e", "--eval", default="", metavar="EXPR", help="expression on the output (main.EXPR)"
    )
    flags.add_jsonnet_flags(evaluate)
    flags.add_implementation_flag(evaluate)
    evaluate.set_defaults(tk_handler=run)


def run(args: argparse.Namespace) -> int:
    from tools.tanka.eval import eval_output, evaluate_path  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    settings = flags.with_variables(eval_settings(args.path), args)
    sys.stdout.write(eval_output(evaluate_path(args.path, args.eval, settings=settings)))
    return 0
