"""Check environments: render each as `tk show` does, validate every object, run the policies.

`check_environments(root, env_paths)` is the entry point for the CLI, the agent tool and the
proposal; `check_manifests` checks objects a caller already rendered. Broken policies and
unusable settings raise CheckSetupError before anything is rendered, so a check never passes
silently; an environment that does not render is reported in the CheckReport and the others are
still checked.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.tanka.check.errors import CheckSetupError
from tools.tanka.check.findings import Checker, Finding, Level, ObjectRef
from tools.tanka.check.policy import PolicySet, rule_results
from tools.tanka.check.rego import CompiledPolicy
from tools.tanka.check.report import CheckReport, EnvResult
from tools.tanka.check.schema import SchemaCatalog
from tools.tanka.check.secrets import scrub
from tools.tanka.env.loader import EvalSettings, load_environment
from tools.tanka.env.spec import Environment
from tools.tanka.errors import MultipleEnvsError, TankaError
from tools.tanka.pipeline.render import in_parallel, process_loaded
from tools.tanka.pipeline.rendered import RenderedEnv
from tools.tanka.project import DEFAULT_ENTRYPOINT, SPEC_FILE, resolve_env_paths

DEFAULT_POLICY_DIR = "policy"
# The repository's extra JSON Schemas (CRDs) live next to its policies.
SCHEMA_SUBDIR = "schemas"


@dataclass(frozen=True, slots=True)
class CheckOptions:
    policy_dir: str = DEFAULT_POLICY_DIR  # TANKA_BOT_POLICY_DIR, relative to the repository
    kubernetes_version: str | None = None  # TANKA_BOT_KUBERNETES_VERSION; None: the newest
    schema_dir: str | None = None  # relative to the repository; None: <policy_dir>/schemas

    def schemas(self) -> str:
        return self.schema_dir or f"{self.policy_dir.rstrip('/')}/{SCHEMA_SUBDIR}"


@dataclass(frozen=True, slots=True)
class RenderedEnvironment:
    label: str  # `environments/prod`, or `environments/multi [blue]` for inline environments
    path: str  # the environment's directory relative to the repository
    env: Environment | None
    manifests: tuple[dict[str, Any], ...] = ()
    error: str | None = None


def check_environments(
    root: Path,
    env_paths: Sequence[str],
    options: CheckOptions | None = None,
    *,
    settings: EvalSettings | None = None,
    renders: Mapping[str, Sequence[RenderedEnv] | str] | None = None,
) -> CheckReport:
    """Schema and policy findings for the environments at `env_paths` (directories or
    entrypoints, relative to `root` or absolute inside it). `renders`: this tree's renders with
    the default options by entrypoint (RevisionDiff.worktree), used instead of rendering again."""
    options = options or CheckOptions()
    root = Path(os.path.realpath(root))
    schemas = options.schemas()
    catalog = SchemaCatalog(options.kubernetes_version, root / schemas, shown=f"{schemas}/")
    policies = PolicySet.load(root, options.policy_dir)
    entrypoints = sorted({entrypoint(root, p) for p in env_paths})
    settings = settings or EvalSettings(confine=root)
    done = {e: _reused(root, e, renders or {}) for e in entrypoints}
    todo = [e for e, found in done.items() if found is None]
    fresh = dict(zip(todo, in_parallel(lambda e: render(root, e, settings), todo, settings),
                     strict=True))  # fmt: skip
    rendered = [done[e] or fresh[e] for e in entrypoints]
    report = CheckReport(catalog.version, policies=policies.files)
    for group in rendered:
        for env in group:
            check_rendered(report, env, catalog, policies)
    return report


def _reused(
    root: Path, main: Path, renders: Mapping[str, Sequence[RenderedEnv] | str]
) -> list[RenderedEnvironment] | None:
    """An entrypoint's environments from a render made for a diff, when it rendered and carries
    the specs; else None (render it here: errors are worded as the check words them)."""
    found = renders.get(main.relative_to(root).as_posix())
    if found is None or isinstance(found, str) or not all(e.spec for e in found):
        return None
    directory = main.parent.relative_to(root).as_posix()
    return [
        RenderedEnvironment(
            f"{directory} [{e.name}]" if e.inline else directory,
            directory,
            e.spec,
            tuple(dict(m) for m in e.manifests),
        )
        for e in found
    ]


def entrypoint(root: Path, given: str) -> Path:
    """The main.jsonnet an environment path names; CheckSetupError when there is none."""
    path = Path(os.path.realpath(given if os.path.isabs(given) else root / given))
    if not path.is_relative_to(root):
        raise CheckSetupError(f"{given} is outside the repository {root}; give a path inside it")
    candidate = path / DEFAULT_ENTRYPOINT if path.is_dir() else path
    if candidate.suffix != ".jsonnet" or not candidate.is_file():
        raise CheckSetupError(
            f"no environment at {given}: {candidate.relative_to(root)} does not exist; give an "
            "environment's directory (list them with `tanka-bot tk env list`)"
        )
    return candidate


def render(root: Path, main: Path, settings: EvalSettings) -> list[RenderedEnvironment]:
    """Every environment of an entrypoint, rendered as `tk show` renders it (static: one;
    inline: each by name); a render failure becomes one entry with its error text."""
    directory = main.parent.relative_to(root).as_posix()
    try:
        paths = resolve_env_paths(main)
        if (paths.base / SPEC_FILE).exists():
            return [_rendered(directory, load_environment(paths.base, settings=settings))]
        try:
            return [_rendered(directory, load_environment(main, settings=settings))]
        except MultipleEnvsError as exc:
            names = exc.names
        return [
            _rendered(directory, load_environment(main, name=n, settings=settings)) for n in names
        ]
    except TankaError as exc:
        text = str(exc).replace(f"{root}{os.sep}", "").replace(str(root), ".")
        return [RenderedEnvironment(directory, directory, None, error=text)]


def _rendered(directory: str, loaded: Any) -> RenderedEnvironment:
    env: Environment = loaded.env
    label = f"{directory} [{env.name}]" if env.inline else directory
    return RenderedEnvironment(label, directory, env, tuple(process_loaded(loaded)))


def check_rendered(
    report: CheckReport, rendered: RenderedEnvironment, catalog: SchemaCatalog, policies: PolicySet
) -> None:
    """Add one rendered environment's result and findings to `report`."""
    if rendered.env is None:
        report.envs.append(EnvResult(rendered.label, error=rendered.error))
        return
    environment = rendered.env.to_go_dict(with_data=False)
    compiled = policies.compile(environment, rendered.path)
    result, findings = check_manifests(rendered.label, rendered.manifests, catalog, compiled)
    report.envs.append(result)
    report.findings.extend(findings)


def check_manifests(
    label: str,
    manifests: Sequence[Mapping[str, Any]],
    catalog: SchemaCatalog,
    policy: CompiledPolicy | None,
) -> tuple[EnvResult, list[Finding]]:
    """Validate and run the policies on one environment's objects."""
    findings: list[Finding] = []
    unchecked: Counter[tuple[str, str]] = Counter()
    invalid = 0
    for manifest in manifests:
        obj = dict(manifest)
        ref = ObjectRef.of(obj)
        problems = _schema_findings(label, obj, catalog)
        if problems is None:
            unchecked[(ref.api_version, ref.kind)] += 1
        result = policy.evaluate(obj) if policy is not None else {}
        found = (problems or []) + _policy_findings(label, obj, ref, result)
        invalid += any(f.level == Level.ERROR for f in found)
        findings += found
    for (api_version, kind), count in sorted(unchecked.items()):
        findings.append(_unchecked(label, api_version, kind, count, catalog))
    return EnvResult(label, objects=len(manifests), invalid=invalid), findings


def _schema_findings(
    label: str, obj: dict[str, Any], catalog: SchemaCatalog
) -> list[Finding] | None:
    """None when the kind has no schema."""
    problems = catalog.validate(obj)
    if problems is None:
        return None
    ref = ObjectRef.of(obj)
    return [
        Finding(label, ref, Level.ERROR, Checker.SCHEMA, scrub(p.message, obj), path=p.path)
        for p in problems
    ]


def _policy_findings(
    label: str, obj: dict[str, Any], ref: ObjectRef, result: Mapping[str, Any]
) -> list[Finding]:
    return [
        Finding(label, ref, r.level, Checker.POLICY, scrub(r.message, obj), rule=r.rule)
        for r in rule_results(result, ref.kind)
    ]


def _unchecked(
    label: str, api_version: str, kind: str, count: int, catalog: SchemaCatalog
) -> Finding:
    where = catalog.shown or "a schema folder"
    objects = "1 object" if count == 1 else f"{count} objects"
    message = (
        f"no schema for {api_version} {kind} in Kubernetes {catalog.version} ({objects} not "
        f"validated); add its JSON Schema to {where} to check it"
    )
    return Finding(
        label,
        ObjectRef(kind, "", api_version=api_version),
        Level.UNCHECKED,
        Checker.SCHEMA,
        message,
    )
