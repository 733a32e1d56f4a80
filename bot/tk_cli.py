"""`tanka-bot tk ...` (placeholder until the Tanka engine lands)."""

from __future__ import annotations

import argparse
from typing import Any

from bot.errors import UserError


def add_parser(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser("tk", help="Tanka commands, in-process")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    raise UserError("tk is not available yet")
