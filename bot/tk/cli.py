"""`tanka-bot tk ...`: Tanka's read-only commands on the in-process engine.

env list, show, export, eval, diff, importers, fmt and lint behave like their `tk` namesakes (show
and export byte-identical); `diff` is the cluster-less rendered diff against a git revision;
`check` validates rendered objects against Kubernetes schemas and the repository's Rego
policies. Engine errors become one UserError each (bot.tk.common.user_errors), so the CLI prints
a message and never a traceback.

Start-up is the boundary here: this module and its parser (bot.tk.arguments) are imported by
every `tanka-bot` command and load no engine module; `run` imports the one handler module the
command names ("module:function"), which imports what that command uses.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from bot.tk.arguments import SUBCOMMANDS, add_log_level_flags

_SUBCOMMANDS = SUBCOMMANDS


def add_parser(sub: Any, argv: Sequence[str] | None = None) -> None:
    """`tk` and its subcommands: only the one `argv` names (argparse takes ~8 ms to build them
    all, a fifth of `tk show`'s own start-up), all of them when it names none of them (help,
    a mistyped name: the error lists them)."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "tk", help="Tanka commands, in-process (never touches a cluster)"
    )
    parser.set_defaults(handler=run)
    cmds = parser.add_subparsers(dest="tk_command", required=True, metavar="TK_COMMAND")
    wanted = _subcommand_in(sys.argv[1:] if argv is None else argv)
    for name, define in SUBCOMMANDS.items():
        if wanted is None or name == wanted:
            define(cmds)
    add_log_level_flags(parser)


def _subcommand_in(argv: Sequence[str]) -> str | None:
    """The tk subcommand right after `tk` in `argv`, when it is one of SUBCOMMANDS."""
    words = list(argv)
    after = words[words.index("tk") + 1 :] if "tk" in words else []
    return after[0] if after and after[0] in SUBCOMMANDS else None


def run(args: argparse.Namespace) -> int:
    """The command's handler, imported by name: the engine loads here, and only what the
    command uses."""
    module, _, name = str(args.tk_handler).partition(":")
    handler = getattr(importlib.import_module(module), name)
    common = importlib.import_module("bot.tk.common")
    flags = importlib.import_module("bot.tk.flags")
    with common.user_errors(), flags.jsonnet_implementation(args):
        code: int = handler(args)
    return code
