"""Environment -> processed manifests -> YAML: the glue behind `tk show`, `tk export` and diffs.

`load_environment` (environments.py) evaluates; `extract` (manifests.py) walks the output for
manifests as tk does; `process` (process.py) injects namespaces and labels, applies resource
defaults and target filters and sorts; goyaml/emit.py prints them byte-identical to tk; export/
names and writes the files (export/run.py's `export` is `tk export OUT_DIR ENV_PATH...`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from tools.tanka.env.loader import EvalSettings, LoadedEnvironment, load_environment
from tools.tanka.env.spec import Environment
from tools.tanka.errors import MultipleEnvsError, StaticAndInlineError
from tools.tanka.evaluation.pool import default_pool
from tools.tanka.goyaml.emit import dump_yaml, show_output
from tools.tanka.manifests import extract
from tools.tanka.pipeline.process import ProcessOptions, process
from tools.tanka.pipeline.rendered import RenderedEnv
from tools.tanka.project import SPEC_FILE, resolve_env_paths
from tools.tanka.redact import learn_secret_values, redact_all

if TYPE_CHECKING:
    from tools.redaction.mask import SecretMask

Manifest = Mapping[str, Any]
T = TypeVar("T")
R = TypeVar("R")
__all__ = ["RenderedEnv", "manifest_yaml", "render_entrypoint", "render_path", "show"]


def process_loaded(loaded: LoadedEnvironment, targets: Sequence[str] = ()) -> list[dict[str, Any]]:
    """tk's LoadManifests after evaluation: extract, then the processing pipeline in tk's order."""
    env = loaded.env
    if env.expect_versions_tanka:
        # Loaded only here: its RE2 patterns cost every render's start-up otherwise.
        from tools.tanka.env.versions import check_version  # noqa: PLC0415 - tk start-up: 4 ms, and few environments state a constraint

        check_version(env.expect_versions_tanka)
    options = ProcessOptions.from_environment(env, targets=tuple(targets))
    return process(extract(loaded.data, env.name), options)


def _refuse_environments(manifests: Sequence[Manifest]) -> None:
    """tk's Load: an Environment left among the resources means spec.json and inline at once."""
    if any(str(m.get("kind", "")).lower() == "environment" for m in manifests):
        raise StaticAndInlineError()


def render_path(
    env_path: str | os.PathLike[str],
    *,
    name: str | None = None,
    targets: Sequence[str] = (),
    settings: EvalSettings | None = None,
) -> RenderedEnv:
    """The environment at `env_path` (tk's rules; `name` selects one of several inline envs)."""
    loaded = load_environment(env_path, name=name, settings=settings)
    manifests = process_loaded(loaded, targets)
    _refuse_environments(manifests)
    return _rendered(loaded.env, manifests)


def render_entrypoint(
    entrypoint: str | os.PathLike[str],
    *,
    settings: EvalSettings | None = None,
    name: str | None = None,
    targets: Sequence[str] = (),
) -> list[RenderedEnv]:
    """Every environment an entrypoint defines: one for a static env, all of an inline file
    (only the one called `name` when given, as tk's --name); `targets` as tk's -t.

    An inline file is evaluated once when it holds one environment; only when it holds several
    is each loaded again by its exact name, as tk export does (in parallel on the pool).
    """
    paths = resolve_env_paths(entrypoint)
    if (paths.base / SPEC_FILE).exists():
        return [render_path(paths.base, name=name, targets=targets, settings=settings)]
    if name:
        return [render_path(paths.entrypoint, name=name, targets=targets, settings=settings)]
    try:
        return [render_path(paths.entrypoint, targets=targets, settings=settings)]
    except MultipleEnvsError as exc:
        names = exc.names
    return in_parallel(
        lambda n: render_path(paths.entrypoint, name=n, targets=targets, settings=settings),
        names,
        settings,
    )


def in_parallel(
    action: Callable[[T], R], items: Iterable[T], settings: EvalSettings | None
) -> list[R]:
    """`[action(item) for item in items]` with as many evaluations at once as the pool has
    workers; results in order, and the first item's error in that order is raised."""
    todo = list(items)
    pool = (settings.pool if settings is not None else None) or default_pool()
    if len(todo) < 2 or pool.size < 2:
        return [action(item) for item in todo]
    with ThreadPoolExecutor(max_workers=min(pool.size, len(todo))) as executor:
        return list(executor.map(action, todo))


def _rendered(env: Environment, manifests: Sequence[Manifest]) -> RenderedEnv:
    return RenderedEnv(env.name, env.inline, tuple(manifests), identity(env), env)


def identity(env: Environment) -> tuple[tuple[str, str], ...]:
    """The values an environment generated from a template has of its own, as (field, value):
    its name (and the name's last path segment, often a cluster's), spec.namespace,
    spec.apiServer (and its host) and spec.contextNames."""
    server = env.api_server.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
    fields = [
        ("metadata.name", env.name),
        ("name", env.name.rsplit("/", 1)[-1]),
        ("spec.namespace", env.namespace),
        ("spec.apiServer", env.api_server),
        ("apiServer host", server),
    ]
    fields += [("spec.contextNames", name) for name in env.context_names]
    return tuple((field, value) for field, value in fields if value)


def manifest_yaml(manifest: Manifest) -> str:
    """One manifest as tk writes it to an export file (yaml.v2 Marshal)."""
    return dump_yaml(manifest)


def show(
    env_path: str | os.PathLike[str],
    *,
    name: str | None = None,
    targets: Sequence[str] = (),
    settings: EvalSettings | None = None,
    redact: bool = False,
    mask: SecretMask | None = None,
) -> str:
    """`tk show --dangerous-allow-redirect` output; `redact` hides Secret values (agent tools),
    and `mask` learns them, to hide them wherever else they appear."""
    rendered = render_path(env_path, name=name, targets=targets, settings=settings)
    if mask is None and not redact:  # `tanka-bot tk show`: nothing to hide, nothing to load
        return show_output(rendered.manifests)
    if mask is not None:
        learn_secret_values(rendered.manifests, mask)
    manifests = redact_all(rendered.manifests) if redact else list(rendered.manifests)
    return show_output(manifests)
