"""`tanka-bot tk show ENV_PATH`: tk show --dangerous-allow-redirect, byte for byte."""

from __future__ import annotations

import argparse
import sys

from bot.tk import flags
from bot.tk.common import env_path_errors
from tools.tanka.pipeline import render


def show(args: argparse.Namespace) -> int:
    with env_path_errors(args.env_path):
        settings = flags.with_variables(flags.eval_settings(args.env_path), args)
        text = render.show(
            args.env_path, name=args.name or None, targets=flags.targets(args), settings=settings
        )
    sys.stdout.write(text)
    return 0
