"""`tanka-bot tk status PATH`: tk status without the cluster (tools/tanka/status.py).

tk's flags: --name and the Jsonnet variables; -t is accepted and, as in tk's status, not applied.
"""

from __future__ import annotations

import argparse
import sys

from bot.tk import flags
from bot.tk.common import env_path_errors
from tools.tanka.env.loader import load_environment
from tools.tanka.pipeline.render import process_loaded
from tools.tanka.status import format_status


def run(args: argparse.Namespace) -> int:
    with env_path_errors(args.env_path):
        settings = flags.with_variables(flags.eval_settings(args.env_path), args)
        loaded = load_environment(args.env_path, name=args.name or None, settings=settings)
    sys.stdout.write(format_status(loaded.env, process_loaded(loaded)))
    return 0
