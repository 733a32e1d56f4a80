"""tk's shared command-line flags for `tanka-bot tk`, read: Jsonnet variables, --name, -t, -l,
and the evaluation settings they go into (`eval_settings`).

They are defined in bot.tk.arguments, as cmd/tk/flags.go defines them:
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
import csv
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from bot.errors import UserError
from bot.tk.arguments import VARIABLE_KINDS
from bot.tk.common import git_toplevel
from tools.tanka.env.loader import EvalSettings
from tools.tanka.evaluation.evaluate import str_code
from tools.tanka.evaluation.implementation import choose, parse
from tools.tanka.evaluation.pool import InProcessPool


def targets(args: argparse.Namespace) -> tuple[str, ...]:
    """-t values; each may hold several, comma-separated (pflag reads them as CSV)."""
    given: list[str] = getattr(args, "target", [])
    if not given:
        return ()
    out: list[str] = []
    for value in given:
        out += next(csv.reader([value])) if value else []
    return tuple(out)


def selector_text(args: argparse.Namespace) -> str:
    """The -l selector, refused with tk's text when malformed."""
    text: str = getattr(args, "selector", "")
    from tools.tanka.env.selector import SelectorError, parse_selector  # noqa: PLC0415 - tk start-up: 3 ms that show and eval need not pay

    try:
        parse_selector(text)
    except SelectorError as exc:
        raise UserError(str(exc)) from None
    return text


def variables(args: argparse.Namespace, scope: str) -> dict[str, str]:
    """tk's cliCodeParser for `scope` (ext or tla): name -> Jsonnet code."""
    out: dict[str, str] = {}
    for kind in VARIABLE_KINDS:
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


def eval_settings(path: str, *, in_process: bool = True) -> EvalSettings:
    """Imports confined to the git repository holding `path` rather than the Tanka project, since
    vendored symlinks may point elsewhere in the repository (Tempo's do); outside git, the
    project (the engine's default). Evaluation runs in this process (InProcessPool): a person
    running tk on their own checkout needs no sandbox from it, as `tk` has none, and starting a
    worker process would cost more than a whole evaluation of a small environment."""
    top = git_toplevel(Path(path).absolute())
    return EvalSettings(confine=top, pool=InProcessPool() if in_process else None)


@contextmanager
def jsonnet_implementation(args: argparse.Namespace) -> Iterator[None]:
    """Evaluate with the implementation the command line names (--jsonnet-implementation), if
    it names one, while the command runs."""
    value: str | None = getattr(args, "jsonnet_implementation", None)
    if value is None:
        yield
        return
    previous = choose(parse(value))
    try:
        yield
    finally:
        choose(previous)
