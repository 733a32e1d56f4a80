"""`tanka-bot tk ...`: Tanka's read-only commands on the in-process engine.

env list, show, export, eval, diff, importers, fmt and lint behave like their `tk` namesakes (show
and export byte-identical; export and eval live in export.py and eval.py, tk's shared flags in
flags.py); `diff` is the cluster-less rendered diff against a git revision; `check`
validates rendered objects against Kubernetes schemas and the repository's Rego policies. Engine
errors become one UserError each, so the CLI prints a message and never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.errors import UserError
from bot.tk import eval as tk_eval
from bot.tk import export as tk_export
from bot.tk import flags
from bot.tk import source as tk_source
from bot.tk import status as tk_status
from bot.tk import tool as tk_tool
from bot.tk.common import env_path_errors, eval_settings, one_line
from tools.errors import ToolError
from tools.tanka.errors import JsonnetError, NoMatchingEnvError, ParallelError, TankaError

if TYPE_CHECKING:
    pass

# Start-up: this module is imported by every `tanka-bot` command, so the engine's modules load
# inside the handlers, and only the ones a command uses.


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
    for name, define in _SUBCOMMANDS.items():
        if wanted is None or name == wanted:
            define(cmds)
    flags.add_log_level_flags(parser)


def _subcommand_in(argv: Sequence[str]) -> str | None:
    """The tk subcommand right after `tk` in `argv`, when it is one of _SUBCOMMANDS."""
    words = list(argv)
    after = words[words.index("tk") + 1 :] if "tk" in words else []
    return after[0] if after and after[0] in _SUBCOMMANDS else None


def _add_diff(cmds: Any) -> None:
    diff = cmds.add_parser("diff", help="rendered-manifest diff against a git revision")
    diff.add_argument(
        "--base", metavar="REV", help="revision to compare with (default: merge-base)"
    )
    diff.add_argument(
        "--summary", action="store_true",
        help="print only the summary, environments with the same diff grouped",
    )  # fmt: skip
    diff.add_argument("env_paths", nargs="*", metavar="ENV_PATH", help="default: affected envs")
    flags.add_workflow_flags(diff)
    flags.add_jsonnet_flags(diff)


def _add_check(cmds: Any) -> None:
    check = cmds.add_parser(
        "check", help="validate rendered objects: Kubernetes schemas (strict) and Rego policies"
    )
    check.add_argument("env_paths", nargs="*", metavar="ENV_PATH", help="default: affected envs")
    check.add_argument(
        "--output", choices=("text", "json"), default="text", help="json: for machines"
    )


def _add_importers(cmds: Any) -> None:
    imp = cmds.add_parser("importers", help="environments that import the given files")
    imp.add_argument("files", nargs="+", metavar="FILE", help="changed files; deleted:FILE if gone")
    imp.add_argument("--root", default=".", help="repository root to search (default: .)")


def _add_env(cmds: Any) -> None:
    env = cmds.add_parser("env", help="environments")
    env_cmds = env.add_subparsers(dest="env_command", required=True, metavar="ENV_COMMAND")
    lst = env_cmds.add_parser("list", aliases=["ls"], help="list environments below PATH")
    lst.add_argument("path", nargs="?", default=".", metavar="PATH")
    lst.add_argument("--json", action="store_true", help="JSON output, as tk env list --json")
    lst.add_argument("--names", action="store_true", help="only the names, one per line")
    flags.add_selector_flag(lst)
    flags.add_jsonnet_flags(lst)
    flags.add_implementation_flag(lst)


def _add_show(cmds: Any) -> None:
    show = cmds.add_parser("show", help="print an environment's manifests as YAML")
    show.add_argument("env_path", metavar="ENV_PATH")
    # tk refuses to write to a pipe or file without this flag; tanka-bot never refuses (its output
    # is for reading, and nothing it prints is ever applied), so the flag is accepted and ignored
    # to keep scripts written for tk working unchanged.
    show.add_argument(
        "--dangerous-allow-redirect",
        action="store_true",
        help="accepted for tk compatibility; output may always be redirected",
    )
    flags.add_workflow_flags(show)
    flags.add_jsonnet_flags(show)


# Each tk subcommand and what defines it, in the order `tanka-bot tk --help` lists them.
_SUBCOMMANDS: dict[str, Callable[[Any], None]] = {
    "env": _add_env,
    "show": _add_show,
    "export": tk_export.add_parser,
    "eval": tk_eval.add_parser,
    "status": tk_status.add_parser,
    "tool": tk_tool.add_parser,
    "diff": _add_diff,
    "check": _add_check,
    "importers": _add_importers,
    "fmt": tk_source.add_fmt_parser,
    "lint": tk_source.add_lint_parser,
}


def run(args: argparse.Namespace) -> int:
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "env": _env_list,
        "show": _show,
        "diff": _diff,
        "check": _check,
        "importers": tk_tool.run_importers,
    }
    handler = getattr(args, "tk_handler", None) or handlers[args.tk_command]
    with _user_errors(), flags.jsonnet_implementation(args):
        return handler(args)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Expected engine failures become UserError: one message, no traceback."""
    try:
        yield
    except Exception as exc:
        error = user_error(exc)
        if error is None:
            raise
        raise error from None


def user_error(exc: Exception) -> UserError | None:
    """The UserError an engine failure is shown as; None for anything else (a bug)."""
    from tools.tanka.imports.importers import ImportersError  # noqa: PLC0415 - tk start-up: the engine loads when a command runs
    from tools.tanka.source.fmt import FormatError, FormatterUnavailable  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    if isinstance(exc, UserError):
        return exc
    if isinstance(exc, NoMatchingEnvError):  # tk's text names tk's command; name ours
        return UserError(
            f"found no matching environments; run `tanka-bot tk env list {exc.path}` to view "
            "available options"
        )
    if isinstance(exc, JsonnetError | ParallelError):
        # The first line says what failed; the Jsonnet stack trace after it says where.
        return UserError(str(exc).strip())
    if isinstance(
        exc, TankaError | ImportersError | FormatError | FormatterUnavailable | ToolError
    ):
        return UserError(one_line(str(exc)))
    if isinstance(exc, OSError):
        return UserError(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
    return None


def _env_list(args: argparse.Namespace) -> int:
    from tools.tanka.env.loader import format_env_list, list_environments  # noqa: PLC0415 - tk start-up: the engine loads when a command runs
    from tools.tanka.env.selector import selector  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    matches = selector(flags.selector_text(args))
    envs = list_environments(
        args.path,
        settings=flags.with_variables(eval_settings(args.path), args),
        selector=lambda env: matches(env.labels),
    )
    if args.names:
        sys.stdout.write("".join(f"{e.name}\n" for e in envs))
    else:
        sys.stdout.write(format_env_list(envs, json=args.json))
    return 0


def _show(args: argparse.Namespace) -> int:
    from tools.tanka.pipeline.render import show  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    with env_path_errors(args.env_path):
        settings = flags.with_variables(eval_settings(args.env_path), args)
        text = show(
            args.env_path, name=args.name or None, targets=flags.targets(args), settings=settings
        )
    sys.stdout.write(text)
    return 0


def _diff(args: argparse.Namespace) -> int:
    from bot.tk.diff import options_of, run_diff  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    return run_diff(
        base=args.base,
        env_paths=args.env_paths,
        cwd=Path.cwd(),
        summary=args.summary,
        options=options_of(args),
    )


def _check(args: argparse.Namespace) -> int:
    from bot.tk.check import run_check  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    return run_check(env_paths=args.env_paths, output=args.output, cwd=Path.cwd())
