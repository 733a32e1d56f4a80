"""The `tanka-bot` command: serve, chat, tk, eval and audit. One error boundary for all of them.

Start-up matters for `tanka-bot tk ...`, a command people run many times a day: this module and
the parsers it builds import nothing heavy. The settings (pydantic-settings), the agent and the
Slack service load inside the command that needs them.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.errors import ConfigError, describe

if TYPE_CHECKING:
    from bot.chat.command import ChatDeps


def _parser(chat_deps: ChatDeps | None) -> argparse.ArgumentParser:
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

    from bot.chat import arguments as chat  # noqa: PLC0415 - start-up: each subcommand loads only its own modules
    from bot.eval import arguments as eval_arguments  # noqa: PLC0415 - start-up: each subcommand loads only its own modules
    from bot.tk import cli as tk_cli  # noqa: PLC0415 - start-up: each subcommand loads only its own modules

    chat.add_parser(sub, chat_deps)
    tk_cli.add_parser(sub)
    eval_arguments.add_parser(sub)

    from bot.telemetry import audit_command as audit_cli  # noqa: PLC0415 - start-up: each subcommand loads only its own modules

    audit_cli.add_parser(sub)
    return parser


class _Version(argparse.Action):
    """`--version`: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415 - start-up: each subcommand loads only its own modules

        try:
            found = version("tanka-bot")
        except PackageNotFoundError:  # run from a source tree that was never installed
            found = "unknown (not installed)"
        print(f"tanka-bot {found}")  # on stdout, as argparse's own version action
        parser.exit()


def not_dumpable() -> bool:
    """Mark this process non-dumpable (Linux `prctl(PR_SET_DUMPABLE, 0)`); False elsewhere.

    The service holds every token in memory. A non-dumpable process's `/proc/<pid>/` files
    (environ, mem, maps) belong to root and cannot be ptraced, so a child it runs (git, Helm,
    a Jsonnet worker evaluating repository code) cannot read the parent's secrets even as the
    same user. Children get their own dumpable state back when they exec.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # noqa: PLC0415 - only on Linux, only for serve and chat

    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0


_PR_SET_DUMPABLE = 4


def _serve(args: argparse.Namespace) -> int:
    not_dumpable()
    from bot.config import load_settings  # noqa: PLC0415 - start-up: each subcommand loads only its own modules

    settings = load_settings()
    settings.require(settings.missing_for_serve(socket_mode=args.socket_mode))
    from bot.app import serve  # noqa: PLC0415 - start-up: each subcommand loads only its own modules
    from bot.telemetry.logs import configure_json_logging  # noqa: PLC0415 - start-up: each subcommand loads only its own modules

    configure_json_logging(logging.DEBUG if args.verbose else logging.INFO)
    # slack_sdk and urllib3 log request details at debug level; keep them out of the service log.
    for noisy in ("slack_sdk", "slack_bolt", "urllib3", "waitress.queue"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return serve(settings, host=args.host, port=args.port, socket_mode=args.socket_mode)


def main(argv: Sequence[str] | None = None, *, chat_deps: ChatDeps | None = None) -> int:
    """Run one command; `chat_deps` replaces what `chat` takes from the outside world (tests)."""
    args = _parser(chat_deps).parse_args(argv)
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


if __name__ == "__main__":
    raise SystemExit(main())
