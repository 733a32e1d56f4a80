"""`tanka-bot eval`'s command line, kept apart from the command itself.

Every `tanka-bot` invocation builds the whole parser; defining eval's arguments here means the
agent, the engine and the settings load only when `eval` really runs (bot.eval.command).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.compose import CommandDeps


def add_parser(sub: Any, deps: CommandDeps | None = None) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "eval",
        help="measure the agent on a suite of Tanka tasks",
        description="Run the agent on each task (a fresh copy of its fixture repository each "
        "time) with the configured provider and model, and score the result.",
    )
    parser.add_argument("--tasks", type=Path, metavar="DIR", help="suite folder (default: evals/)")
    parser.add_argument("--only", nargs="+", default=[], metavar="ID", help="run only these tasks")
    parser.add_argument("--repeat", type=int, default=1, metavar="N", help="runs per task (1)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="runs at once (1)")
    parser.add_argument("--report", type=Path, metavar="PATH", help="write the report here")
    parser.add_argument("--json", action="store_true", help="the report as JSON")
    parser.add_argument(
        "--check-tasks",
        action="store_true",
        help="no model: check each task fails on its base and passes with its reference",
    )
    parser.add_argument(
        "--provider", choices=("anthropic", "gemini", "openai"), help="model provider"
    )
    parser.add_argument("--model", help="model id (default: the provider's default)")
    parser.set_defaults(handler=lambda args: _run(args, deps))


def _run(args: argparse.Namespace, deps: CommandDeps | None) -> int:
    from bot.eval.command import run_eval  # noqa: PLC0415 - `tanka-bot --help` stays fast: eval's modules load when eval runs

    return run_eval(args, deps)
