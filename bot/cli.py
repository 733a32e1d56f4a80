"""The `tanka-bot` command: serve, chat, tk, eval and audit. One error boundary for all of them."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.config import ConfigError
from bot.errors import describe

if TYPE_CHECKING:
    from bot.chat.command import ChatDeps


def _parser(chat_deps: ChatDeps | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tanka-bot",
        description="ChatOps for Tanka repositories: prepare changes, never apply them.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug output")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the Slack bot")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on")  # noqa: S104
    serve.add_argument("--port", type=int, default=3000, help="port to listen on (3000)")
    serve.add_argument("--socket-mode", action="store_true", help="use Slack Socket Mode")

    from bot.chat import command as chat
    from bot.eval import command as eval_command
    from bot.tk import cli as tk_cli

    chat.add_parser(sub, chat_deps or chat.ChatDeps())
    tk_cli.add_parser(sub)
    eval_command.add_parser(sub)

    from bot import audit_cli

    audit_cli.add_parser(sub)
    return parser


def _serve(args: argparse.Namespace) -> int:
    from bot.config import load_settings

    settings = load_settings()
    settings.require(settings.missing_for_serve(socket_mode=args.socket_mode))
    from bot.app import serve
    from bot.logs import configure_json_logging

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
