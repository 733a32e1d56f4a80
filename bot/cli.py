"""The `tanka-bot` command: serve, chat, tk, eval and audit. One error boundary for all of them.

Start-up matters for `tanka-bot tk ...`, a command people run many times a day: this module and
the parsers it builds import nothing heavy. The settings (pydantic-settings), the agent and the
Slack service load inside the command that needs them.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from bot.dumpable import not_dumpable
from bot.errors import ConfigError, describe

if TYPE_CHECKING:
    from bot.compose import CommandDeps


def _parser(
    chat_deps: CommandDeps | None, argv: Sequence[str] | None = None
) -> argparse.ArgumentParser:
    """The parser for `argv`: with its command named, only that command's arguments (each
    command's module loads only when it runs); else every command's, for the help and the
    error that lists them."""
    parser = argparse.ArgumentParser(
        prog="tanka-bot",
        description="ChatOps for Tanka repositories: prepare changes, never apply them.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug output")
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the Slack bot")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on")  # noqa: S104
    serve.add_argument("--port", type=int, default=3000, help="port to listen on (3000)")
    serve.add_argument("--socket-mode", action="store_true", help="use Slack Socket Mode")

    wanted = _command_in(argv)
    for name, module in _COMMANDS.items():
        if wanted is None or name == wanted:
            arguments = importlib.import_module(module)
            if name == "chat":
                arguments.add_parser(sub, chat_deps)
            elif name == "tk":  # its subcommands too: only the one named
                arguments.add_parser(sub, argv if wanted == "tk" else ())
            else:
                arguments.add_parser(sub)
    return parser


# Every command but serve (defined above) and the module whose `add_parser(sub)` defines it, in
# the order `tanka-bot --help` lists them. Loaded by name: `tanka-bot tk show`, run many times a
# day, would otherwise import the audit log's Redis client, the agent's and the eval's modules.
_COMMANDS = {
    "chat": "bot.chat.arguments",
    "tk": "bot.tk.cli",
    "eval": "bot.eval.arguments",
    "audit": "bot.audit_command",
}
# The global options that may come before the command and take no value; with any other (-h,
# an abbreviation) every command is defined, as the top-level help lists them all.
_PLAIN_OPTIONS = frozenset({"-v", "--verbose"})


def _command_in(argv: Sequence[str] | None) -> str | None:
    """The command `argv` runs when it names one of _COMMANDS after plain options only; None
    when the whole parser is needed (help, --version, a missing or unknown command)."""
    for arg in sys.argv[1:] if argv is None else argv:
        if arg in _PLAIN_OPTIONS:
            continue
        return arg if arg in _COMMANDS or arg == "serve" else None
    return None


class _Version(argparse.Action):
    """`--version`: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415 - start-up: 19 ms (32 modules) that only --version needs

        try:
            found = version("tanka-bot")
        except PackageNotFoundError:  # run from a source tree that was never installed
            found = "unknown (not installed)"
        print(f"tanka-bot {found}")  # on stdout, as argparse's own version action
        parser.exit()


def _serve(args: argparse.Namespace) -> int:
    not_dumpable()
    from bot.config import load_settings  # noqa: PLC0415 - start-up: pydantic-settings, 0.25 s, loads for the commands that read settings

    settings = load_settings()
    settings.require(settings.missing_for_serve(socket_mode=args.socket_mode))
    from bot.app import serve  # noqa: PLC0415 - start-up: the Slack service, 1.5 s of imports, loads for serve alone
    from bot.telemetry.logs import configure_service_logging  # noqa: PLC0415 - start-up: 5 ms (datetime, contextvars) that tk show need not pay

    level = logging.DEBUG if args.verbose else logging.INFO
    configure_service_logging(level)
    return serve(settings, host=args.host, port=args.port, socket_mode=args.socket_mode,
                 log_level=level)  # fmt: skip


def main(argv: Sequence[str] | None = None, *, chat_deps: CommandDeps | None = None) -> int:
    """Run one command; `chat_deps` replaces what `chat` takes from the outside world (tests)."""
    args = _parser(chat_deps, argv).parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        if args.command == "serve":
            return _serve(args)
        handler = args.handler
        code: int = handler(args)
        return code
    except Exception as exc:
        described = describe(exc)
        if described is None:  # not an expected failure: a bug, shown with its traceback
            raise
        message, code = described
        label = "" if isinstance(exc, ConfigError) else "error: "  # it lists its own problems
        print(f"tanka-bot: {label}{message}", file=sys.stderr)
        return code
    except KeyboardInterrupt:
        print("tanka-bot: interrupted", file=sys.stderr)
        return 130


def console() -> NoReturn:
    """The `tanka-bot` program: `main` on the command line; for `tk` commands, with fewer
    garbage collections and an exit without the interpreter's teardown.

    Loading the engine (~170 modules) allocates a few hundred thousand objects that live to
    the end, and the cyclic collector, run every 700 allocations, scanned them over and over:
    ~7 ms of `tk show`, finding nearly nothing. A tk command collects every _TK_GC_ALLOCATIONS
    instead, which still bounds what a long one (diff, export of many environments) keeps.

    A `tk` command is one evaluation and its output, run many times a day; freeing every module
    and object (and the Go runtime's arenas) at exit costs it ~15 ms after its output is
    complete. Once stdout and stderr are flushed, the exit hooks run (as the interpreter would
    run them) and the process ends with main's code. Anything unusual - a flush that fails (a
    closed pipe, reported as ever), a thread the interpreter would wait for - takes the ordinary
    exit. Daemon threads (the evaluation pool's start-up) end either way, as at any exit.
    """
    tk = _command_in(None) == "tk"
    if tk:
        gc.set_threshold(_TK_GC_ALLOCATIONS, *gc.get_threshold()[1:])
    code = main()
    if tk and not _running_threads():
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:
            raise SystemExit(code) from None
        atexit._run_exitfuncs()  # what Py_Finalize would run, before its teardown
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


_TK_GC_ALLOCATIONS = 20_000


def _running_threads() -> bool:
    """Whether a thread other than this one is one the interpreter's exit would wait for."""
    main_thread = threading.main_thread()
    return any(not t.daemon for t in threading.enumerate() if t is not main_thread)


if __name__ == "__main__":
    console()
