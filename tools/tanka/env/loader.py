"""Tanka environments: static (spec.json) and inline, found, listed and loaded as tk does.

* static: `spec.json` next to the entrypoint; name = base relative to root; evaluation gets the
  environment (without data) as the `tanka.dev/environment` ext var.
* inline: no spec.json; the entrypoint's output holds objects of kind Environment with the
  resources under `data`; selected by substring of the name, exact match preferred.
`load_environment` returns the spec and the raw evaluated data, before manifest processing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.tanka.env.choose import extract_envs, select_env
from tools.tanka.env.spec import Environment, parse_spec, parse_spec_value
from tools.tanka.errors import (
    JsonnetError,
    NoBaseError,
    ParallelError,
    PathNotFoundError,
    TankaError,
)
from tools.tanka.evaluation.evaluate import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, evaluate_snippet
from tools.tanka.evaluation.pool import EvalPool, default_pool
from tools.tanka.evaluation.reads import ReadSet
from tools.tanka.evaluation.scripts import Mode, eval_script, probe_script
from tools.tanka.gojson.encode import go_dumps
from tools.tanka.project import DEFAULT_ENTRYPOINT, SPEC_FILE, EnvPaths, resolve_env_paths

ENV_EXT_VAR = "tanka.dev/environment"
INLINE_ENV_CODE = (
    "error \"Using tk.env and std.extVar('tanka.dev/environment') is only supported for static "
    'environments. Directly access this data using standard Jsonnet instead."'
)


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """How environments are evaluated: tk's --ext-code/--tla-code/--max-stack plus limits."""

    ext_vars: Mapping[str, str] = field(default_factory=dict)  # name -> Jsonnet code
    tlas: Mapping[str, str] = field(default_factory=dict)  # name -> Jsonnet code
    max_stack: int = 0
    timeout: float = DEFAULT_TIMEOUT
    memory_mb: int = DEFAULT_MEMORY_MB
    confine: Path | None = None  # imports may not leave it; default: the project root
    pool: EvalPool | None = None
    record: ReadSet | None = None  # gathers what every evaluation read (evaluation/reads.py)


@dataclass(slots=True)
class LoadedEnvironment:
    env: Environment
    data: Any  # the evaluated resources (static: the whole output; inline: the env's data)


def static_environment(paths: EnvPaths) -> Environment:
    """Peek a static environment: spec.json only, no evaluation."""
    spec_path = paths.base / SPEC_FILE
    env = parse_spec(spec_path.read_bytes(), paths.entrypoint_rel)
    env.name = paths.name  # tk discards spec.json's metadata.name ("legacy behavior")
    return _located(env, paths, inline=False)


def _located(env: Environment, paths: EnvPaths, *, inline: bool) -> Environment:
    env.path, env.root, env.base = paths.name, paths.root, paths.base
    env.entrypoint, env.inline = paths.entrypoint, inline
    return env


def evaluate(
    paths: EnvPaths, settings: EvalSettings, *, env_code: str, snippet: str | None,
    tlas: Mapping[str, str],
) -> Any:  # fmt: skip
    """The environment's entrypoint (`snippet` None) or `snippet` evaluated as tk does: the
    environment's code as tk's ext var, confined to the project, the entrypoint trusted."""
    return evaluate_snippet(
        paths.base if snippet is not None else paths.entrypoint,
        snippet,
        jpath=paths.jpath(),
        confine=settings.confine or paths.root,
        ext_vars={**settings.ext_vars, ENV_EXT_VAR: env_code},
        tlas=tlas,
        trusted=[paths.entrypoint],
        timeout=settings.timeout,
        memory_mb=settings.memory_mb,
        max_stack=settings.max_stack,
        pool=settings.pool,
        record=settings.record,
    )


def _evaluate_script(paths: EnvPaths, settings: EvalSettings, mode: Mode, name: str) -> Any:
    """tk's eval-script path: probe whether main is a function, then run the wrapper."""
    entry = str(paths.entrypoint)
    try:
        probe = evaluate(paths, settings, env_code=INLINE_ENV_CODE, snippet=probe_script(entry),
                         tlas={})  # fmt: skip
        script = eval_script(
            entry, mode, name=name, tlas=sorted(settings.tlas), is_function=probe is True
        )
        return evaluate(paths, settings, env_code=INLINE_ENV_CODE, snippet=script,
                        tlas=settings.tlas)  # fmt: skip
    except JsonnetError as exc:
        raise prefixed(exc, f"evaluating jsonnet in path '{paths.base}'") from None


def prefixed(exc: JsonnetError, prefix: str) -> JsonnetError:
    """The same error (type kept: timeouts stay timeouts) with tk's context prefix."""
    exc.args = (f"{prefix}: {exc}",)
    return exc


def _inline_envs(paths: EnvPaths, data: Any) -> list[Environment]:
    return [
        _located(parse_spec_value(raw, paths.entrypoint_rel), paths, inline=True)
        for raw in extract_envs(data)
    ]


def list_file(file: str | os.PathLike[str], settings: EvalSettings) -> list[Environment]:
    """tk's List for one entrypoint: the static spec, or every inline environment's metadata."""
    paths = resolve_env_paths(file)
    if (paths.base / SPEC_FILE).exists():
        return [static_environment(paths)]
    return _inline_envs(paths, _evaluate_script(paths, settings, Mode.LIST, ""))


def peek_environment(
    path: str | os.PathLike[str], *, name: str | None = None, settings: EvalSettings | None = None
) -> Environment:
    """tk's Peek: the environment's metadata without its resources (static: spec.json only;
    inline: the metadata script, the name matched as a substring, an exact match preferred)."""
    settings = settings or EvalSettings()
    paths = resolve_env_paths(path)
    if (paths.base / SPEC_FILE).exists():
        return static_environment(paths)
    mode = Mode.PEEK if name else Mode.LIST
    raw = _evaluate_script(paths, settings, mode, name or "")
    chosen = select_env(extract_envs(raw), os.fspath(path), name or "")
    return _located(parse_spec_value(chosen, paths.entrypoint_rel), paths, inline=True)


def load_environment(
    path: str | os.PathLike[str], *, name: str | None = None, settings: EvalSettings | None = None
) -> LoadedEnvironment:
    """tk's LoadEnvironment: the environment at `path` with its raw evaluated data.

    A path that does not exist is taken as an environment name searched from `.` (as tk does).
    """
    settings = settings or EvalSettings()
    if not os.path.exists(path):
        name, path = os.fspath(path), "."
    paths = resolve_env_paths(path)
    if (paths.base / SPEC_FILE).exists():
        env = static_environment(paths)
        try:
            data = evaluate(paths, settings, env_code=env.to_go_json(with_data=False),
                            snippet=None, tlas=settings.tlas)  # fmt: skip
        except JsonnetError as exc:
            raise prefixed(exc, "evaluating jsonnet") from None
        return LoadedEnvironment(env, data)
    if name:
        raw = _evaluate_script(paths, settings, Mode.LOAD, name)
    else:
        try:
            raw = evaluate(paths, settings, env_code=INLINE_ENV_CODE, snippet=None,
                           tlas=settings.tlas)  # fmt: skip
        except JsonnetError as exc:
            raise prefixed(exc, "evaluating jsonnet") from None
    chosen = select_env(extract_envs(raw), os.fspath(path), name or "")
    env = _located(parse_spec_value(chosen, paths.entrypoint_rel), paths, inline=True)
    return LoadedEnvironment(env, env.data)


def load_environments(
    paths: Sequence[str | os.PathLike[str]], *, settings: EvalSettings | None = None
) -> list[LoadedEnvironment | TankaError]:
    """Load several environments in parallel; one result (or the error) per path, in order."""
    settings = settings or EvalSettings()
    workers = (settings.pool or default_pool()).size

    def one(path: str | os.PathLike[str]) -> LoadedEnvironment | TankaError:
        try:
            return load_environment(path, settings=settings)
        except TankaError as exc:
            return exc

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(paths)))) as executor:
        return list(executor.map(one, paths))


def find_envs(path: str | os.PathLike[str]) -> list[Path]:
    """Every file named main.jsonnet under `path` (symlinked directories not followed)."""
    start = Path(os.path.abspath(path))
    if start.is_file():
        return [start] if start.name == DEFAULT_ENTRYPOINT else []
    if not start.exists():
        raise PathNotFoundError(str(start))
    found: list[Path] = []
    for directory, dirnames, filenames in os.walk(start):
        dirnames.sort()
        found.extend(Path(directory, f) for f in sorted(filenames) if f == DEFAULT_ENTRYPOINT)
    return found


def list_environments(
    path: str | os.PathLike[str] = ".",
    *,
    settings: EvalSettings | None = None,
    selector: Callable[[Environment], bool] | None = None,
) -> list[Environment]:
    """`tk env list PATH`: every environment below `path`, sorted by name.

    Entrypoints outside any project base are skipped; any other failure fails the listing with
    tk's "Errors occurred during parallel processing" text naming each file.
    """
    settings = settings or EvalSettings()
    files = find_envs(path)
    workers = max(1, min((settings.pool or default_pool()).size, len(files)))

    def one(file: Path) -> list[Environment] | str:
        try:
            return list_file(file, settings)
        except NoBaseError:
            return []
        except TankaError as exc:
            return f"{file}:\n {exc}"

    envs: list[Environment] = []
    errors: list[str] = []
    with ThreadPoolExecutor(max_workers=workers) as executor:
        for result in executor.map(one, files):
            if isinstance(result, str):
                errors.append(result)
            else:
                envs.extend(e for e in result if selector is None or selector(e))
    if errors:
        raise ParallelError(errors)
    return sorted(envs, key=lambda e: e.name)


def format_env_list(envs: Sequence[Environment], *, json: bool = False) -> str:
    """tk env list's output: a tab-aligned table, or Go's compact JSON (`null` when empty)."""
    if json:
        if not envs:
            return "null\n"
        return go_dumps([e.to_go_dict(with_data=False) for e in envs]) + "\n"
    rows = [("NAME", "NAMESPACE", "SERVER")]
    rows += [(e.name, e.namespace, e.api_server) for e in envs]
    # Go's tabwriter (padding 4): every cell, the last included, padded to its column width.
    widths = [max(len(row[i]) for row in rows) + 4 for i in range(3)]
    return "".join(
        "".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + "\n" for row in rows
    )
