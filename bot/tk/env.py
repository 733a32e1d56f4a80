"""`tanka-bot tk env list [--json] [PATH]`: the environments below PATH, as tk lists them."""

from __future__ import annotations

import argparse
import sys

from bot.tk import flags
from tools.tanka.env.loader import format_env_list, list_environments
from tools.tanka.env.selector import selector


def env_list(args: argparse.Namespace) -> int:
    matches = selector(flags.selector_text(args))
    envs = list_environments(
        args.path,
        settings=flags.with_variables(flags.eval_settings(args.path), args),
        selector=lambda env: matches(env.labels),
    )
    if args.names:
        sys.stdout.write("".join(f"{e.name}\n" for e in envs))
    else:
        sys.stdout.write(format_env_list(envs, json=args.json))
    return 0
