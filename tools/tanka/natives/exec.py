"""helmTemplate and kustomizeBuild: render charts (Helm's library, else the binary) and
kustomizations (the binary).

As tk does: options are read case-insensitively, the chart or kustomization path is relative to
`dirname(opts.calledFrom)`, the output is a yaml.v3 stream whose documents must be Kubernetes
objects, and the result is an object keyed `snakecase(kind + "_" + metadata.name)`. On top of tk,
the path must stay inside the project directory the evaluation is confined to, a kustomization
may read nothing else (no remote resource is fetched: natives/kustomization.py), and a missing
binary gives an error naming it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

import yaml

from tools.tanka.chartfile import missing_chart_hint
from tools.tanka.confined import ConfinedPaths, Outside
from tools.tanka.errors import NativeError
from tools.tanka.manifests import schema_problems
from tools.tanka.natives import helm_lib
from tools.tanka.natives.chart_copy import confined_chart
from tools.tanka.natives.kustomization import NO_NETWORK_ENV, check_kustomization
from tools.tanka.natives.parse_yaml import parse_yaml
from tools.tanka.natives.snakecase import snakecase

EXEC_TIMEOUT = 120.0
DEFAULT_NAME_FORMAT = '{{ print .kind "_" .metadata.name | snakecase }}'
_DEBUG_HINT = "Use --debug flag to render out invalid YAML"


def _options(opts_json: str, fn: str, what: str, anchor: str) -> dict[str, Any]:
    raw = json.loads(opts_json)
    opts = {str(k).lower(): v for k, v in raw.items()} if isinstance(raw, dict) else {}
    if not opts.get("calledfrom"):
        raise NativeError(
            f"{fn}: 'opts.calledFrom' is unset or empty.\n"
            f"Tanka needs this to find your {what}. See https://tanka.dev/{anchor}"
        )
    return opts


def _target(opts: dict[str, Any], rel: str, confine: str) -> str:
    path = os.path.normpath(os.path.join(os.path.dirname(str(opts["calledfrom"])), rel))
    # Resolved one link at a time from the project down: nothing outside it is looked at.
    if isinstance(ConfinedPaths(confine).walk(path), Outside):
        raise NativeError(f"{path} is outside the project directory {confine}; refused")
    return path


def _binary(env_var: str, name: str, fn: str) -> str:
    found = shutil.which(os.environ.get(env_var) or name)
    if found is None:
        raise NativeError(
            f"{fn}: the `{name}` binary was not found on PATH (nor via {env_var}); "
            f"install {name} to render this environment"
        )
    return found


def _run(
    argv: list[str], stdin: str, fn: str, shown: str = "", env: dict[str, str] | None = None
) -> str:
    """The command's output; NativeError naming it as `shown` (default: its first two words).
    `env`: variables set on top of this process's environment."""
    shown = shown or f"`{' '.join(argv[:2])}`"
    try:
        proc = subprocess.run(
            argv, input=stdin.encode(), capture_output=True, timeout=EXEC_TIMEOUT, check=False,
            env={**os.environ, **env} if env else None,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise NativeError(f"{fn}: {shown} ran past {EXEC_TIMEOUT:g}s") from None
    if proc.returncode != 0:
        # helm's "Use --debug flag" hint cannot be acted on through tk.
        detail = proc.stderr.decode(errors="replace").replace(_DEBUG_HINT, "").strip()
        raise NativeError(f"{fn}: {shown} failed: {detail}")
    return proc.stdout.decode(errors="replace")


def helm_template(
    name: str, chart: str, opts_json: str, *, confine: str, use_library: bool = True
) -> dict[str, Any]:
    """tk's helmTemplate: rendered in-process by Helm's library when it loads (`helm_lib`),
    else by the `helm` binary with the flags tk passes it."""
    fn = "helmTemplate"
    opts = _options(opts_json, fn, "charts", "helm#optscalledfrom-unset")
    path = _target(opts, chart, confine)
    if not os.path.exists(path):
        raise NativeError(
            f"helmTemplate: Failed to find a chart at '{path}': stat {path}: no such file or "
            "directory. See https://tanka.dev/helm#failed-to-find-chart"
            + missing_chart_hint(path, confine)
        )

    # Both paths name the chart as the calling file does, and give Helm's message alone.
    command = f"`helm template {name} {chart}`"
    # Helm reads a private copy holding no symlink, each file read inside the project.
    with confined_chart(path, confine, fn) as copy:
        try:
            if use_library and helm_lib.available():
                try:
                    stream = helm_lib.template(name, copy, opts)
                except helm_lib.HelmLibraryError as exc:
                    detail = str(exc).rstrip()
                    raise NativeError(f"{fn}: {command} failed: Error: {detail}") from None
            else:
                stream = _run(helm_argv(name, copy, opts), _values_yaml(opts), fn, shown=command)
        except NativeError as exc:  # Helm names the copy's path where it names the chart's
            raise NativeError(str(exc).replace(copy, path)) from None
    try:
        return keyed_manifests(stream, fn, _name_format(opts), source=f"the output of {command}")
    except NativeError:
        # Helm names the template whose output is not YAML; the library leaves that to us.
        bad = helm_lib.yaml_error(stream)
        if bad is None:
            raise
        raise NativeError(f"{fn}: {command} failed: Error: YAML parse error on {bad}") from None


def helm_argv(name: str, path: str, opts: dict[str, Any]) -> list[str]:
    """tk's `helm template` command line (pkg/helm/template.go: TemplateOpts.Flags)."""
    argv = [_binary("TANKA_HELM_PATH", "helm", "helmTemplate"), "template", name, path]
    argv += ["--values", "-"]
    argv += [f"--api-versions={v}" for v in opts.get("apiversions") or []]
    if opts.get("includecrds", True):
        argv.append("--include-crds")
    argv += ["--skip-tests"] if opts.get("skiptests") else []
    argv += [f"--kube-version={opts['kubeversion']}"] if opts.get("kubeversion") else []
    argv += ["--no-hooks"] if opts.get("nohooks") else []
    argv += [f"--namespace={opts['namespace']}"] if opts.get("namespace") else []
    return argv


def _values_yaml(opts: dict[str, Any]) -> str:
    return yaml.safe_dump(opts.get("values") or {}, sort_keys=True)


def kustomize_build(path: str, opts_json: str, *, confine: str) -> dict[str, Any]:
    fn = "kustomizeBuild"
    opts = _options(opts_json, fn, "Kustomize", "kustomize#optscalledfrom-unset")
    target = _target(opts, path, confine)
    if not os.path.exists(target):
        raise NativeError(
            f"kustomizeBuild: Failed to find kustomization at '{target}': stat {target}: no such "
            "file or directory. See https://tanka.dev/kustomize#failed-to-find-kustomization"
        )
    check_kustomization(target, confine, fn)
    argv = [_binary("TANKA_KUSTOMIZE_PATH", "kustomize", fn), "build", target]
    return keyed_manifests(_run(argv, "", fn, env=NO_NETWORK_ENV), fn, _name_format(opts))


def _name_format(opts: dict[str, Any]) -> str:
    return str(opts.get("nameformat") or "")


def keyed_manifests(
    stream: str, fn: str, name_format: str = "", *, source: str = "the output"
) -> dict[str, Any]:
    """The documents of a YAML stream keyed by tk's name format: the default one natively, a
    custom `opts.nameFormat` (Go text/template + sprig) through Helm's template engine.

    Documents are checked as tk decodes them (Manifest.Verify): a List needs no metadata, an
    object may have `generateName` instead of `name`; with the default format their key has
    Go's `<nil>` for the missing name, as tk's has."""
    docs: list[dict[str, Any]] = []
    for doc in parse_yaml(stream):
        if doc is None or doc == {}:
            continue  # tk skips documents that are empty or only comments
        problems = schema_problems(doc) if isinstance(doc, dict) else {"": "not an object"}
        if problems:
            fields = "; ".join(f"{k}: {v}" if k else v for k, v in problems.items())
            raise NativeError(
                f"{fn}: {source} has a document that is not a Kubernetes object ({fields})"
            )
        docs.append(doc)
    fmt = name_format or DEFAULT_NAME_FORMAT
    if name_format and name_format != DEFAULT_NAME_FORMAT:
        keys = _custom_names(name_format, docs, fn)
    else:
        keys = [snakecase(f"{d['kind']}_{_go_print(_name(d))}") for d in docs]
    out: dict[str, Any] = {}
    for key, doc in zip(keys, docs, strict=True):
        if key in out:
            raise NativeError(
                f"Two resources share the same name '{key}'. Please adapt the name template "
                f"'{fmt}'." + ("" if source == "the output" else f" (in {source})")
            )
        out[key] = doc
    return out


def _name(doc: dict[str, Any]) -> Any:
    metadata = doc.get("metadata")
    return metadata.get("name") if isinstance(metadata, dict) else None


def _go_print(value: Any) -> str:
    # fmt.Sprint of what `.metadata.name` yields: a string, or nil when missing.
    return "<nil>" if value is None else str(value)


def _custom_names(name_format: str, docs: list[dict[str, Any]], fn: str) -> list[str]:
    if not helm_lib.available():
        raise NativeError(
            f"{fn}: a custom opts.nameFormat needs Helm's template engine (helm-python-sdk), "
            "which cannot be loaded here; remove it to use the default `kind_name` keys"
        )
    try:
        return helm_lib.format_names(name_format, docs)
    except helm_lib.HelmLibraryError as exc:
        raise NativeError(f"{fn}: name format {name_format!r}: {exc}") from None
