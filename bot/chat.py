"""`tanka-bot chat` (placeholder until the agent loop lands)."""

from __future__ import annotations

import argparse
from typing import Any

from bot.errors import UserError


def add_parser(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser("chat", help="the agent in a terminal")
    parser.add_argument("--repo", help="checkout to work on (default: git root of the cwd)")
    parser.add_argument("prompt", nargs="?", help="one-shot request")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    raise UserError("chat is not available yet")
