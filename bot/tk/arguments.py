"""`tanka-bot tk`'s parser: every subcommand, its flags (tk's, as cmd/tk/flags.go defines them),
and the handler that runs it, named "module:function".

Light on purpose: every `tanka-bot` command may build this parser (help, --version, an unknown
command), so it imports no engine module. bot.tk.cli imports the named handler's module when
the command runs; that module imports the engine it needs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from tools.tanka.export import DEFAULT_EXTENSION, DEFAULT_FORMAT

DEFAULT_PARALLEL = 8  # tk export's -p
VARIABLE_KINDS = (
    "code",
    "str",
    "code-file",
    "str-file",
)  # the Jsonnet variables' kinds, in tk's order


def add_jsonnet_flags(parser: argparse.ArgumentParser) -> None:
    """The ext/tla variables and --max-stack."""
    for scope in ("ext", "tla"):
        for kind in VARIABLE_KINDS:
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


def _add_env(cmds: Any) -> None:
    env = cmds.add_parser("env", help="environments")
    env_cmds = env.add_subparsers(dest="env_command", required=True, metavar="ENV_COMMAND")
    lst = env_cmds.add_parser("list", aliases=["ls"], help="list environments below PATH")
    lst.add_argument("path", nargs="?", default=".", metavar="PATH")
    lst.add_argument("--json", action="store_true", help="JSON output, as tk env list --json")
    lst.add_argument("--names", action="store_true", help="only the names, one per line")
    add_selector_flag(lst)
    add_jsonnet_flags(lst)
    add_implementation_flag(lst)
    lst.set_defaults(tk_handler="bot.tk.env:env_list")


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
    add_workflow_flags(show)
    add_jsonnet_flags(show)
    show.set_defaults(tk_handler="bot.tk.show:show")


def _add_export(cmds: Any) -> None:
    export = cmds.add_parser("export", help="write manifests to files, as tk export")
    export.add_argument("out_dir", metavar="OUT_DIR")
    export.add_argument("env_paths", nargs="+", metavar="PATH")
    export.add_argument(
        "--format", default=DEFAULT_FORMAT, help="file name template (tk's default)"
    )
    export.add_argument("--extension", default=DEFAULT_EXTENSION)
    export.add_argument(
        "-r", "--recursive", action="store_true", help="look recursively for environments"
    )
    export.add_argument(
        "--merge-strategy", default="", help="'fail-on-conflicts' or 'replace-envs'"
    )
    export.add_argument("--merge", action="store_true", help=argparse.SUPPRESS)  # deprecated
    export.add_argument(
        "--merge-deleted-envs",
        action="append",
        default=[],
        metavar="MAIN_FILE",
        help="entrypoints deleted since the last export: their files are removed",
    )
    export.add_argument("--skip-manifest", action="store_true", help="write no manifest.json")
    export.add_argument(
        "-p", "--parallel", type=int, default=DEFAULT_PARALLEL, metavar="N",
        help="with -r, environments evaluated at once on worker processes (default 8, at most "
        "the CPUs; 1: one at a time in this process)",
    )  # fmt: skip
    export.add_argument(
        "-c", "--cache-path", default="", metavar="DIR",
        help="refused: tk's export cache can serve a stale render (see the README)",
    )  # fmt: skip
    export.add_argument(
        "-e", "--cache-envs", action="append", default=[], metavar="REGEX",
        help="which environments tk's cache covers; without --cache-path it does nothing",
    )  # fmt: skip
    export.add_argument(
        "--mem-ballast-size-bytes", type=int, default=0, metavar="BYTES",
        help="accepted and ignored: a Go garbage-collector knob of tk's with no equivalent here",
    )  # fmt: skip
    add_workflow_flags(export)
    add_selector_flag(export)
    add_jsonnet_flags(export)
    export.set_defaults(tk_handler="bot.tk.export:run")


def _add_eval(cmds: Any) -> None:
    evaluate = cmds.add_parser("eval", help="evaluate an environment's Jsonnet to JSON")
    evaluate.add_argument("path", metavar="PATH")
    evaluate.add_argument(
        "-e", "--eval", default="", metavar="EXPR", help="expression on the output (main.EXPR)"
    )
    add_jsonnet_flags(evaluate)
    add_implementation_flag(evaluate)
    evaluate.set_defaults(tk_handler="bot.tk.eval:run")


def _add_status(cmds: Any) -> None:
    status = cmds.add_parser(
        "status",
        help="an environment's spec and resources, as tk status without the cluster lines",
    )
    status.add_argument("env_path", metavar="PATH")
    add_workflow_flags(status)
    add_jsonnet_flags(status)
    status.set_defaults(tk_handler="bot.tk.status:run")


def _add_tool(cmds: Any) -> None:
    tool = cmds.add_parser("tool", help="handy utilities for working with Jsonnet, as tk tool")
    tools = tool.add_subparsers(dest="tool_command", required=True, metavar="TOOL_COMMAND")
    _add_charts(tools)
    jpath = tools.add_parser(
        "jpath",
        help="print the JSONNET_PATH of an environment (no final newline, as tk)",
        description="The import path tk uses for PATH's environment, joined with ':', lowest "
        "precedence first, as `tk tool jpath`.",
    )
    jpath.add_argument("path", metavar="PATH", help="an environment directory or file")
    jpath.add_argument(
        "-d", "--debug", action="store_true", help="also print main, rootDir, baseDir and jpath "
        "to stderr",
    )  # fmt: skip
    jpath.set_defaults(tk_handler="bot.tk.tool:jpath")
    imports = tools.add_parser(
        "imports",
        help="list all transitive imports of an environment (JSON)",
        description="Every file the environment at PATH imports, transitively, relative to the "
        "project root, as a JSON list, as `tk tool imports`.",
    )
    imports.add_argument("path", metavar="PATH")
    imports.add_argument(
        "-c", "--check", default="", metavar="COMMIT",
        help="say whether a file COMMIT changed is among the imports (exit 16 if so)",
    )  # fmt: skip
    imports.set_defaults(tk_handler="bot.tk.tool:imports")
    importers = tools.add_parser(
        "importers", help="environments that import the given files (as `tanka-bot tk importers`)"
    )
    importers.add_argument(
        "files", nargs="+", metavar="FILE", help="changed files; deleted:FILE if gone"
    )
    importers.add_argument("--root", default=".", help="repository root to search (default: .)")
    importers.set_defaults(tk_handler="bot.tk.tool:run_importers")
    count = tools.add_parser(
        "importers-count",
        help="for each file in DIR, the number of environments that import it",
        description="For each Jsonnet file in DIR (main.jsonnet excepted), the number of "
        "environments that import it, most imported first, as `tk tool importers-count`.",
    )
    count.add_argument("dir", metavar="DIR")
    count.add_argument(
        "--root", default=".", help="root directory to search for environments (default: .)"
    )
    count.add_argument("--recursive", action="store_true", help="find files recursively")
    count.add_argument(
        "--filename-regex",
        default="",
        metavar="REGEX",
        help="only count files whose path matches (default: .jsonnet and .libsonnet files)",
    )
    count.set_defaults(tk_handler="bot.tk.tool:importers_count")


def _add_charts(tool_cmds: Any) -> None:
    """`charts status` under `tk tool`."""
    charts = tool_cmds.add_parser("charts", help="Helm charts vendored per chartfile.yaml")
    sub = charts.add_subparsers(dest="charts_command", required=True, metavar="CHARTS_COMMAND")
    status = sub.add_parser(
        "status",
        help="required charts against the vendored ones (offline; vendoring needs `tk`)",
    )
    status.add_argument(
        "path", nargs="?", default=".", metavar="DIR", help="directory of chartfile.yaml"
    )
    status.set_defaults(tk_handler="bot.tk.charts:run_status")


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
    add_workflow_flags(diff)
    add_jsonnet_flags(diff)
    diff.set_defaults(tk_handler="bot.tk.diff:run")


def _add_check(cmds: Any) -> None:
    check = cmds.add_parser(
        "check", help="validate rendered objects: Kubernetes schemas (strict) and Rego policies"
    )
    check.add_argument("env_paths", nargs="*", metavar="ENV_PATH", help="default: affected envs")
    check.add_argument(
        "--output", choices=("text", "json"), default="text", help="json: for machines"
    )
    check.set_defaults(tk_handler="bot.tk.check:run")


def _add_importers(cmds: Any) -> None:
    imp = cmds.add_parser("importers", help="environments that import the given files")
    imp.add_argument("files", nargs="+", metavar="FILE", help="changed files; deleted:FILE if gone")
    imp.add_argument("--root", default=".", help="repository root to search (default: .)")
    imp.set_defaults(tk_handler="bot.tk.tool:run_importers")


def _add_fmt(cmds: Any) -> None:
    fmt = cmds.add_parser("fmt", help="format Jsonnet files in place")
    fmt.add_argument("paths", nargs="+", metavar="PATH", help="files or directories; - for stdin")
    fmt.add_argument("-t", "--test", action="store_true", help="exit 16 when changes would be made")
    fmt.add_argument(
        "--stdout", action="store_true", help="print formatted contents instead of writing them"
    )
    fmt.add_argument("-v", "--verbose", action="store_true", help="print each checked file")
    _add_exclude(fmt)
    fmt.set_defaults(tk_handler="bot.tk.fmt:fmt")


def _add_lint(cmds: Any) -> None:
    lint = cmds.add_parser("lint", help="validate Jsonnet files (go-jsonnet's linter)")
    lint.add_argument("paths", nargs="+", metavar="PATH")
    _add_exclude(lint)
    lint.add_argument(
        "-n", "--parallelism", type=int, default=4, help="accepted as tk's (must be > 0)"
    )
    lint.add_argument("-v", "--verbose", action="store_true", help="deprecated in tk; unused")
    lint.set_defaults(tk_handler="bot.tk.lint:lint")


def _add_exclude(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-e", "--exclude", action="append", metavar="GLOBS",
        help="globs to exclude (default: **/.*, .*, **/vendor/**, vendor/**)",
    )  # fmt: skip


# Each tk subcommand and what defines it, in the order `tanka-bot tk --help` lists them.
SUBCOMMANDS: dict[str, Callable[[Any], None]] = {
    "env": _add_env,
    "show": _add_show,
    "export": _add_export,
    "eval": _add_eval,
    "status": _add_status,
    "tool": _add_tool,
    "diff": _add_diff,
    "check": _add_check,
    "importers": _add_importers,
    "fmt": _add_fmt,
    "lint": _add_lint,
}
