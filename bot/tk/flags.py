"""tk's shared command-line flags for `tanka-bot tk`: Jsonnet variables, --name, -t, -l.

As cmd/tk/flags.go defines them:
* `--ext-code`, `--ext-str`/`-V`, `--ext-code-file`, `--ext-str-file` and the `--tla-*` twins
  (`-A` for `--tla-str`), each repeatable as `key=value` split at the first `=`. Every value
  reaches Jsonnet as code: a string is JSON-quoted, a file becomes `import @"<path>"` /
  `importstr @"<path>"`. Later kinds win on the same key: code, str, code-file, str-file.
* `--max-stack N` (only N > 0 changes go-jsonnet's default).
* `--name` (one of several inline environments), `-t/--target` (comma-separated, repeatable).
* `-l/--selector`: a Kubernetes label selector on environments.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.errors import UserError

if TYPE_CHECKING:
    from tools.tanka.env.loader import EvalSettings

_KINDS = ("code", "str", "code-file", "str-file")


def add_jsonnet_flags(parser: argparse.ArgumentParser) -> None:
    """The ext/tla variables and --max-stack."""
    for scope in ("ext", "tla"):
        for kind in _KINDS:
            names = [f"--{scope}-{kind}"]
            if kind == "str":
                names.insert(0, "-V" if scope == "ext" else "-A")
            parser.add_argument(
                *names,
                dest=f"{scope}_{kind.replace('-', '_')}",
                action="append",
                default=[],
                metavar="KEY=VALUE",
                help=f"{'extVar' if scope == 'ext' else 'top-level argument'} ({kind})",
            )
    parser.add_argument("--max-stack", type=int, default=0, help="Jsonnet VM max stack")


def add_workflow_flags(parser: argparse.ArgumentParser) -> None:
    """--name, -t/--target and --jsonnet-implementation, as tk show/diff/export have them."""
    parser.add_argument("--name", default="", help="select one of several inline environments")
    parser.add_argument(
        "-t", "--target", action="append", default=[], help="regex filter on '<kind>/<name>'"
    )
    add_implementation_flag(parser)


def add_implementation_flag(parser: argparse.ArgumentParser) -> None:
    """tk's --jsonnet-implementation (workflow commands, env list, eval), with `rust` beside
    `go`; unset, TANKA_BOT_JSONNET or the engine's default (rust) decides."""
    parser.add_argument(
        "--jsonnet-implementation",
        default=None,
        type=_implementation,
        metavar="IMPL",
        help="`go` (tk's evaluator) or `rust` (jrsonnet, go-jsonnet answering wherever they "
        "could differ: the same output); `binary:<path>` is not supported",
    )


def _implementation(value: str) -> str:
    """tk's --jsonnet-implementation: `go` and `rust` are evaluators of the engine itself;
    delegating to another binary would run a program named on the command line, which this CLI
    does not do."""
    if value not in ("go", "rust"):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not supported: the engine evaluates with 'go' (go-jsonnet) or 'rust' "
            "(jrsonnet); drop the flag or pass --jsonnet-implementation=go"
        )
    return value


@contextmanager
def jsonnet_implementation(args: argparse.Namespace) -> Iterator[None]:
    """Evaluate with the implementation the command line names, if it names one, while the
    command runs."""
    value: str | None = getattr(args, "jsonnet_implementation", None)
    if value is None:
        yield
        return
    from tools.tanka.evaluation.implementation import choose, parse  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

    previous = choose(parse(value))
    try:
        yield
    finally:
        choose(previous)


LOG_LEVELS = ("disabled", "fatal", "error", "warn", "info", "debug", "trace")


def add_log_level_flags(parser: argparse.ArgumentParser) -> None:
    """tk's --log-level on every command below `parser`: accepted (one of tk's levels) and
    otherwise unused, since these commands print none of tk's log lines."""
    subcommands = [
        a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
    ]  # argparse lists subcommands nowhere public
    if not subcommands:
        parser.add_argument(
            "--log-level", default="info", choices=LOG_LEVELS, help="accepted as tk's; unused"
        )
    for action in subcommands:
        for child in dict.fromkeys(action.choices.values()):  # aliases map to the same parser
            add_log_level_flags(child)


def add_selector_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-l", "--selector", default="", help="label selector on environments")


def targets(args: argparse.Namespace) -> tuple[str, ...]:
    """-t values; each may hold several, comma-separated (pflag reads them as CSV)."""
    given: list[str] = getattr(args, "target", [])
    if not given:
        return ()
    import csv  # noqa: PLC0415 - tk start-up: only -t reads CSV

    out: list[str] = []
    for value in given:
        out += next(csv.reader([value])) if value else []
    return tuple(out)


def selector_text(args: argparse.Namespace) -> str:
    """The -l selector, refused with tk's text when malformed."""
    text: str = getattr(args, "selector", "")
    from tools.tanka.env.selector import SelectorError, parse_selector  # noqa: PLC0415 - tk start-up: only the commands with -l compile its patterns

    try:
        parse_selector(text)
    except SelectorError as exc:
        raise UserError(str(exc)) from None
    return text


def variables(args: argparse.Namespace, scope: str) -> dict[str, str]:
    """tk's cliCodeParser for `scope` (ext or tla): name -> Jsonnet code."""
    out: dict[str, str] = {}
    for kind in _KINDS:
        for given in getattr(args, f"{scope}_{kind.replace('-', '_')}", []):
            key, sep, value = given.partition("=")
            if not sep:
                expected = "key=filename" if kind.endswith("file") else f"key=<{kind[:4]}>"
                expected = "key=<value>" if kind == "str" else expected
                raise UserError(
                    f"{scope}-{kind} argument has wrong format: `{given}`. Expected `{expected}`"
                )
            out[key] = _code(kind, value)
    return out


def _code(kind: str, value: str) -> str:
    if kind == "code":
        return value
    if kind == "str":
        from tools.tanka.evaluation.evaluate import str_code  # noqa: PLC0415 - tk start-up: the engine loads when a command runs

        return str_code(value)
    verb = "import" if kind == "code-file" else "importstr"
    return f'{verb} @"{value.replace(chr(34), chr(34) * 2)}"'


def with_variables(settings: EvalSettings, args: argparse.Namespace) -> EvalSettings:
    """`settings` with the command line's ext vars, TLAs and max stack."""
    return replace(
        settings,
        ext_vars={**settings.ext_vars, **variables(args, "ext")},
        tlas={**settings.tlas, **variables(args, "tla")},
        max_stack=getattr(args, "max_stack", 0) or settings.max_stack,
    )
