"""`tanka-bot tk eval PATH [-e EXPR]`: tk eval on the in-process engine."""

from __future__ import annotations

import argparse
import sys

from bot.tk import flags
from tools.tanka.eval import eval_output, evaluate_path


def run(args: argparse.Namespace) -> int:
    settings = flags.with_variables(flags.eval_settings(args.path), args)
    sys.stdout.write(eval_output(evaluate_path(args.path, args.eval, settings=settings)))
    return 0
