"""`helm template` in-process, through Helm's own Go library (helm-python-sdk embeds it).

The stream returned is what `helm template NAME CHART --values -` writes, assembled the way
Helm's template action does: the chart's CRDs first (with `includeCrds`), then the rendered
manifests in Helm's install order by kind, then the hooks (none with `noHooks`, no test hooks
with `skipTests`); NOTES.txt, partials and empty documents are left out. Helm's engine renders
with no cluster (`lookup` returns nothing) and no network: the chart is read from disk.

The library is Helm v4; most tk users run helm v3. Where the two differ by a default this module
controls, it gives what helm v3.17 (the dev extra's `helm`) gives: the kube version when
`kubeVersion` is unset, `kubeVersion` normalised as v3 does ("1.30" is v1.30.0), v3's default API
versions on top of v4's, and v3's check of the chart's `kubeVersion` constraint. What is left is
in docs/helm.md and pinned by tests/unit/tanka/test_helm_parity.py.
"""

from __future__ import annotations

import functools
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from tools import linear_re
from tools.errors import EngineError
from tools.tanka.errors import NativeError
from tools.tanka.kind_order import HELM_INSTALL_ORDER
from tools.tanka.natives.parse_yaml import parse_yaml

# Helm's releaseutil.InstallOrder: known kinds in this order, unknown kinds after them by name.
_RANK = {kind: i for i, kind in enumerate(HELM_INSTALL_ORDER)}
# Helm's own separator (releaseutil.SplitManifests), on RE2 as in Go: linear, where re rescanned
# a long run of blank lines from each of its starts.
_SEPARATOR = linear_re.compile(r"(?:^|\s*\n)---\s*")
_KIND = re.compile(r"^kind:\s*['\"]?([^'\"\s#]+)", re.MULTILINE)
_TEST_HOOKS = {"test", "test-success"}
_HOOK_EVENTS = {
    *("pre-install", "post-install", "pre-delete", "post-delete", "pre-upgrade"),
    *("post-upgrade", "pre-rollback", "post-rollback"),
    *_TEST_HOOKS,
}


# `.Capabilities.KubeVersion` when tk's `kubeVersion` is unset: what helm v3.17 reports (v4.2's
# library would say v1.36.0). A constant, so that upgrading helm-python-sdk does not change which
# branch of a chart's `semverCompare` every environment takes.
DEFAULT_KUBE_VERSION = "v1.32.0"
# Group versions in helm v3.17's default `.Capabilities.APIVersions` that v4.2's lacks (its
# Kubernetes client dropped them); charts still test `Has "autoscaling/v2beta2"`. v4's own extras
# (resource.k8s.io/v1, ...) cannot be removed: the library only adds to its set.
V3_ONLY_API_VERSIONS = (
    "autoscaling/v2beta1",
    "autoscaling/v2beta2",
    "networking.k8s.io/v1alpha1",
    "scheduling.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1alpha1",
)
# Masterminds semver's loose form, which helm v3 parses `--kube-version` with.
_SEMVER = re.compile(
    r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


class HelmLibraryError(EngineError):
    """Helm's library refused the chart or a template failed; the message is Helm's."""


def available() -> bool:
    """Whether Helm's library can be loaded here (the package and its native library)."""
    try:
        import helm_python  # noqa: PLC0415, F401
    except (ImportError, OSError):
        return False
    return True


def template(name: str, chart: str, opts: dict[str, Any]) -> str:
    """The `helm template` output for `chart` (a local directory or archive) with tk's options
    (lower-cased keys: values, namespace, apiversions, kubeversion, includecrds, skiptests,
    nohooks)."""
    import helm_python as helm  # noqa: PLC0415 - helm-python-sdk is optional; tk's helm binary is the fallback
    from helm_python import _native  # noqa: PLC0415 - helm-python-sdk is optional; tk's helm binary is the fallback

    helm.disable_logging()
    kube_version = kube_version_of(opts.get("kubeversion"))
    render_opts: dict[str, Any] = {"name": name, "is_install": True, "kube_version": kube_version}
    if opts.get("namespace"):
        render_opts["namespace"] = str(opts["namespace"])
    render_opts["api_versions"] = [*V3_ONLY_API_VERSIONS, *map(str, opts.get("apiversions") or [])]
    try:
        loaded = helm.Chart.load(chart)
        try:
            _check_kube_version(loaded.metadata, kube_version)
            # Chart.render takes no Capabilities options; the library's render call it makes
            # does (kube_version, api_versions), so it is called with them directly.
            files: dict[str, str] = json.loads(
                _native.call_string(
                    "helm_render",
                    loaded._raw(),
                    json.dumps(opts.get("values") or {}),
                    json.dumps(render_opts),
                )
            )
            crds = loaded.crds if opts.get("includecrds", True) else []
        finally:
            loaded.close()
    except helm.HelmError as exc:
        raise HelmLibraryError(str(exc)) from None
    return _stream(files, crds, opts)


def kube_version_of(option: Any) -> str:
    """`.Capabilities.KubeVersion.Version` for tk's `kubeVersion` option, as helm v3 makes it."""
    if not option:
        return DEFAULT_KUBE_VERSION
    match = _SEMVER.match(str(option))
    if match is None:
        raise HelmLibraryError(f"invalid kube version '{option}': Invalid Semantic Version")
    major, minor, patch, pre, meta = match.groups()
    text = f"v{int(major)}.{int(minor or 0)}.{int(patch or 0)}"
    return text + (f"-{pre}" if pre else "") + (f"+{meta}" if meta else "")


def _check_kube_version(metadata: dict[str, Any], kube_version: str) -> None:
    # Helm's install action refuses a chart whose `kubeVersion` constraint the target does not
    # meet; the library's render does not check, so it is checked here, with the constraint
    # evaluated by Helm's own semver (sprig's semverCompare) against v3's version string.
    constraint = str(metadata.get("kubeVersion") or "")
    if constraint and not _satisfies(constraint, kube_version):
        raise HelmLibraryError(
            f"chart requires kubeVersion: {constraint} which is incompatible with Kubernetes "
            f"{kube_version}"
        )


@functools.lru_cache(maxsize=256)
def _satisfies(constraint: str, version: str) -> bool:
    # An unparsable constraint or version fails the check, as in helm v3 (IsCompatibleRange).
    check = '{{ semverCompare .Values.constraint .Values.version | ternary "yes" "no" }}'
    try:
        out = _render_one(check, {"constraint": constraint, "version": version})
    except HelmLibraryError:
        return False
    return out == "yes"


def _stream(files: dict[str, str], crds: list[dict[str, str]], opts: dict[str, Any]) -> str:
    manifests: list[tuple[str, str, str]] = []
    hooks: list[tuple[str, str, str]] = []
    for path in sorted(files):
        if path.endswith("NOTES.txt") or path.rsplit("/", 1)[-1].startswith("_"):
            continue
        for doc in (d.strip() for d in _SEPARATOR.split(files[path])):
            if not doc:
                continue
            kind_match = _KIND.search(doc)
            entry = (path, kind_match.group(1) if kind_match else "", doc)
            events = _hook_events(path, doc)
            if events is None:
                manifests.append(entry)
            elif events and not opts.get("nohooks"):
                hooks += [] if opts.get("skiptests") and events & _TEST_HOOKS else [entry]
    out = [f"---\n# Source: {crd['filename']}\n{crd['data']}\n" for crd in crds]
    for path, _kind, doc in _by_kind(manifests) + _by_kind(hooks):
        out.append(f"---\n# Source: {path}\n{doc}\n")
    return "".join(out)


def _hook_events(path: str, doc: str) -> set[str] | None:
    """The hook events of a document (its top-level `metadata.annotations["helm.sh/hook"]`),
    None when it is no hook, and an empty set when an event is unknown: Helm skips such a
    document altogether (`crd-install`, Helm 2's, is one)."""
    if "helm.sh/hook" not in doc:
        return None  # most documents: no YAML parse needed
    try:
        head = yaml.safe_load(doc)
    except yaml.YAMLError as exc:
        raise HelmLibraryError(f"YAML parse error on {path}: {exc}") from None
    metadata = head.get("metadata") if isinstance(head, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict) or "helm.sh/hook" not in annotations:
        return None
    events = {e.strip().lower() for e in str(annotations["helm.sh/hook"] or "").split(",")}
    return events if events <= _HOOK_EVENTS else set()


def yaml_error(stream: str) -> str | None:
    """`TEMPLATE: ERROR` for the first document of a `helm template` stream that is not YAML."""
    for chunk in stream.split("---\n# Source: ")[1:]:
        path, _, body = chunk.partition("\n")
        try:
            parse_yaml(body)
        except NativeError as exc:
            return f"{path}: {exc}"
    return None


def _by_kind(entries: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    known = len(HELM_INSTALL_ORDER)
    return sorted(entries, key=lambda e: (_RANK.get(e[1], known), "" if e[1] in _RANK else e[1]))


_ENGINE_CHART = "apiVersion: v2\nname: tanka-bot-engine\nversion: 0.0.0\n"
# `template` runs the format with the manifest as both `.` and `$`, as tk's ListAsMap executes
# it on each manifest; the record separator cannot come from a resource name.
_NAMES_TEMPLATE = (
    '{{- define "tanka-bot.name" }}%s{{ end -}}\n'
    '{{- range .Values.manifests }}{{ template "tanka-bot.name" . }}\x1e{{ end -}}'
)


def format_names(name_format: str, manifests: list[dict[str, Any]]) -> list[str]:
    """Each manifest's key under a custom `nameFormat` (Go text/template with sprig's functions,
    the template language of tk's name formats), executed by Helm's template engine."""
    text = _render_one(_NAMES_TEMPLATE % name_format, {"manifests": manifests})
    return text.split("\x1e")[: len(manifests)]


def _render_one(template_text: str, values: dict[str, Any]) -> str:
    """One template rendered by Helm's engine in a throwaway chart, with `values`."""
    import helm_python as helm  # noqa: PLC0415 - helm-python-sdk is optional; tk's helm binary is the fallback

    helm.disable_logging()
    with tempfile.TemporaryDirectory(prefix="tanka-bot-engine-") as tmp:
        chart = Path(tmp)
        (chart / "Chart.yaml").write_text(_ENGINE_CHART)
        (chart / "templates").mkdir()
        (chart / "templates" / "one").write_text(template_text)
        try:
            with helm.Chart.load(chart) as loaded:
                files = loaded.render(values, name="engine")
        except helm.HelmError as exc:
            raise HelmLibraryError(str(exc)) from None
    return next(iter(files.values()), "")
