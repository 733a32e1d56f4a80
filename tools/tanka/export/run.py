"""`tk export OUT_DIR PATH...` with tk's selection, merge strategies and manifest.json rules.

Following pkg/tanka/export.go and cmd/tk/export.go:

* selection: without `recursive`, exactly one path, peeked (several inline environments without
  a name is tk's "found multiple Environments" error); with it, every environment below the
  paths (inline ones included), narrowed by the label selector, then to the one whose name is
  exactly `name` when a name is given;
* the output directory is created when missing and must be empty unless a merge strategy is
  given (`fail-on-conflicts`: an existing file still stops the export; `replace-envs`: the files
  manifest.json maps to the exported environments are deleted first);
* `merge_deleted_envs` (entrypoint paths) deletes the files of environments that no longer
  exist, whatever the strategy;
* each environment is loaded again (inline ones by their exact name), its manifests processed
  (expectVersions, targets) and written; manifest.json maps each file to its environment's
  entrypoint path relative to the root, merged with what was there.

Unlike tk, environments are reloaded from their entrypoint's absolute path rather than from
`metadata.namespace` resolved against the working directory, so the export does not depend on
running from the project root (tk gives the same files when run from there).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.tanka.env.loader import (
    EvalSettings,
    LoadedEnvironment,
    list_environments,
    load_environment,
    peek_environment,
)
from tools.tanka.env.selector import selector as label_selector
from tools.tanka.env.spec import Environment
from tools.tanka.errors import ParallelError, TankaError
from tools.tanka.export import DEFAULT_EXTENSION, DEFAULT_FORMAT
from tools.tanka.export import files as export_files
from tools.tanka.pipeline.render import in_parallel, process_loaded

MERGE_NONE = ""
MERGE_FAIL_ON_CONFLICTS = "fail-on-conflicts"
MERGE_REPLACE_ENVS = "replace-envs"
MERGE_STRATEGIES = (MERGE_NONE, MERGE_FAIL_ON_CONFLICTS, MERGE_REPLACE_ENVS)
MULTIPLE_ENVS_HINT = (
    "Please use --name to export a single environment or --recursive to export multiple "
    "environments."
)


@dataclass(frozen=True, slots=True)
class ExportOptions:
    format: str = DEFAULT_FORMAT
    extension: str = DEFAULT_EXTENSION
    recursive: bool = False
    name: str = ""
    targets: tuple[str, ...] = ()
    selector: str = ""
    merge_strategy: str = MERGE_NONE
    merge_deleted_envs: tuple[str, ...] = ()
    skip_manifest: bool = False


def merge_strategy(strategy: str, *, deprecated_merge: bool = False) -> str:
    """tk's determineMergeStrategy: the strategy, with the deprecated `--merge` flag."""
    if deprecated_merge and strategy:
        raise TankaError("cannot use --merge and --merge-strategy at the same time")
    if deprecated_merge:
        return MERGE_FAIL_ON_CONFLICTS
    if strategy not in MERGE_STRATEGIES:
        raise TankaError(f"invalid merge strategy: {json.dumps(strategy)}")
    return strategy


def select_environments(
    paths: Sequence[str | os.PathLike[str]], options: ExportOptions, settings: EvalSettings
) -> list[Environment]:
    """The environments `tk export` would export for these paths (metadata only)."""
    if options.recursive:
        matches = label_selector(options.selector)
        envs: list[Environment] = []
        errors: list[str] = []
        for path in paths:
            try:
                envs += list_environments(
                    path, settings=settings, selector=lambda env: matches(env.labels)
                )
            except ParallelError as exc:
                errors += exc.errors
        if errors:
            raise TankaError(f"finding environments: {ParallelError(errors)}")
        return [e for e in envs if not options.name or e.name == options.name]
    if len(paths) > 1:
        raise TankaError("recursive flag is required when exporting multiple environments")
    return [peek_environment(paths[0], name=options.name or None, settings=settings)]


def export_environments(
    out_dir: str | os.PathLike[str],
    envs: Sequence[Environment],
    options: ExportOptions,
    settings: EvalSettings,
) -> list[Path]:
    """tk's ExportEnvironments for already selected environments; the files written."""
    out = Path(out_dir)
    empty = export_files.ensure_dir(out)
    if not empty and options.merge_strategy == MERGE_NONE:
        raise TankaError(
            f"output dir `{out_dir}` not empty. Pass a different --merge-strategy to ignore this"
        )
    if options.merge_strategy == MERGE_REPLACE_ENVS:
        _delete_exported(out, [e.metadata_namespace for e in envs], options, "")
    _delete_exported(out, list(options.merge_deleted_envs), options, " from deleted environments")

    matches = label_selector(options.selector)
    results = in_parallel(lambda env: _reload(env, settings), envs, settings)
    errors = [r for r in results if isinstance(r, str)]
    if errors:
        raise ParallelError(errors)
    loaded = [r for r in results if isinstance(r, LoadedEnvironment) and matches(r.env.labels)]
    jobs = [(env.env, process_loaded(env, options.targets)) for env in loaded]
    written: dict[str, str] = {}
    for env, manifests in jobs:
        written.update(
            export_files.export_env(out, env, manifests, options.format, options.extension)
        )
    if not options.skip_manifest:
        export_files.update_manifest_json(out, written, ())
    return [out / relative for relative in written]


def _reload(env: Environment, settings: EvalSettings) -> LoadedEnvironment | str:
    """LoadEnvironment for one selected environment; tk's "<path>:\\n <error>" on failure."""
    path = env.entrypoint or Path(env.metadata_namespace)
    try:
        return load_environment(path, name=env.name if env.inline else None, settings=settings)
    except TankaError as exc:
        return f"{path}:\n {exc}"


def _delete_exported(
    out: Path, entrypoints: Sequence[str], options: ExportOptions, what: str
) -> None:
    """tk's deletePreviouslyExportedManifests: remove the files manifest.json maps to these
    environments (entrypoint paths) and drop them from it."""
    if not entrypoints:
        return
    try:
        mapping = export_files.read_manifest_json(out)
    except TankaError as exc:
        raise TankaError(f"deleting previously exported manifests{what}: {exc}") from None
    if mapping is None:
        return  # tk only warns: nothing was exported there with a manifest.json
    wanted = set(entrypoints)
    deleted = [file for file, env in mapping.items() if env in wanted]
    for file in deleted:
        (out / file).unlink(missing_ok=True)
    if not options.skip_manifest:
        export_files.update_manifest_json(out, {}, deleted)


def export(
    out_dir: str | os.PathLike[str],
    env_paths: Sequence[str | os.PathLike[str]],
    *,
    format: str | None = None,
    extension: str | None = None,
    settings: EvalSettings | None = None,
) -> list[Path]:
    """`tk export OUT_DIR ENV_PATH...`: one file per manifest plus manifest.json; the files."""
    envs = in_parallel(lambda p: load_environment(p, settings=settings), env_paths, settings)
    jobs = [(loaded.env, process_loaded(loaded)) for loaded in envs]
    return export_files.write_export(
        Path(out_dir),
        jobs,
        format=format or DEFAULT_FORMAT,
        extension=extension or DEFAULT_EXTENSION,
    )
