"""`tanka-bot chat`'s command line, kept apart from the command itself.

Every `tanka-bot` invocation builds the whole parser; defining chat's arguments here means the
agent, the tool catalog and the settings load only when `chat` really runs (bot.chat.command).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.compose import CommandDeps


def add_parser(sub: Any, deps: CommandDeps | None) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "chat",
        help="the agent in a terminal",
        description="Talk to the agent about a local Tanka checkout; it edits files in place "
        "and never applies anything to a cluster.",
    )
    parser.add_argument("--repo", help="checkout to work on (default: git root of the cwd)")
    parser.add_argument(
        "--provider", choices=("anthropic", "gemini", "openai"), help="model provider"
    )
    parser.add_argument("--model", help="model id (default: the provider's default)")
    parser.add_argument("prompt", nargs="?", help="one-shot request (omit for the REPL)")
    parser.add_argument(
        "--approve",
        action="store_true",
        help="one-shot: after the turn, open a pull request with the change (as /approve does)",
    )
    parser.set_defaults(handler=_Handler(deps))


class _Handler:
    """Runs `chat` with `deps` (None: the real outside world), importing the command on call."""

    def __init__(self, deps: CommandDeps | None) -> None:
        self.deps = deps

    def __call__(self, args: argparse.Namespace) -> int:
        from bot.chat.command import run_chat  # noqa: PLC0415 - `tanka-bot --help` stays fast: chat's modules load when chat runs

        return run_chat(args, self.deps)
