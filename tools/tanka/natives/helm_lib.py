"""`helm template` in-process, through Helm's own Go library (helm-python-sdk embeds it).

The stream returned is what `helm template NAME CHART --values -` writes, assembled the way
Helm's template action does: the chart's CRDs first (with `includeCrds`), then the rendered
manifests in Helm's install order by kind, then the hooks (none with `noHooks`, no test hooks
with `skipTests`); NOTES.txt, partials and empty documents are left out. Helm's engine renders
with no cluster (`lookup` returns nothing) and no network: the chart is read from disk.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# Helm's releaseutil.InstallOrder: known kinds in this order, unknown kinds after them by name.
INSTALL_ORDER = (
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
)
_RANK = {kind: i for i, kind in enumerate(INSTALL_ORDER)}
_SEPARATOR = re.compile(r"(?:^|\s*\n)---\s*")
_KIND = re.compile(r"^kind:\s*['\"]?([^'\"\s#]+)", re.MULTILINE)
_HOOK = re.compile(r"^\s+['\"]?helm\.sh/hook['\"]?:\s*['\"]?([^'\"\n#]*)", re.MULTILINE)
_TEST_HOOKS = {"test", "test-success"}


class HelmLibraryError(Exception):
    """Helm's library refused the chart or a template failed; the message is Helm's."""


def available() -> bool:
    """Whether Helm's library can be loaded here (the package and its native library)."""
    try:
        import helm_python  # noqa: F401
    except (ImportError, OSError):
        return False
    return True


def template(name: str, chart: str, opts: dict[str, Any]) -> str:
    """The `helm template` output for `chart` (a local directory or archive) with tk's options
    (lower-cased keys: values, namespace, apiversions, kubeversion, includecrds, skiptests,
    nohooks)."""
    import helm_python as helm
    from helm_python import _native

    helm.disable_logging()
    render_opts: dict[str, Any] = {"name": name, "is_install": True}
    if opts.get("namespace"):
        render_opts["namespace"] = str(opts["namespace"])
    if opts.get("kubeversion"):
        render_opts["kube_version"] = str(opts["kubeversion"])
    if opts.get("apiversions"):
        render_opts["api_versions"] = [str(v) for v in opts["apiversions"]]
    try:
        loaded = helm.Chart.load(chart)
        try:
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
            hook = _HOOK.search(doc)
            if hook is None:
                manifests.append(entry)
            elif not opts.get("nohooks"):
                events = {e.strip() for e in hook.group(1).split(",")}
                if not (opts.get("skiptests") and events & _TEST_HOOKS):
                    hooks.append(entry)
    out = [f"---\n# Source: {crd['filename']}\n{crd['data']}\n" for crd in crds]
    for path, _kind, doc in _by_kind(manifests) + _by_kind(hooks):
        out.append(f"---\n# Source: {path}\n{doc}\n")
    return "".join(out)


def _by_kind(entries: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    known = len(INSTALL_ORDER)
    return sorted(entries, key=lambda e: (_RANK.get(e[1], known), "" if e[1] in _RANK else e[1]))


_NAMES_CHART = "apiVersion: v2\nname: tanka-bot-names\nversion: 0.0.0\n"
# `template` runs the format with the manifest as both `.` and `$`, as tk's ListAsMap executes
# it on each manifest; the record separator cannot come from a resource name.
_NAMES_TEMPLATE = (
    '{{- define "tanka-bot.name" }}%s{{ end -}}\n'
    '{{- range .Values.manifests }}{{ template "tanka-bot.name" . }}\x1e{{ end -}}'
)


def format_names(name_format: str, manifests: list[dict[str, Any]]) -> list[str]:
    """Each manifest's key under a custom `nameFormat` (Go text/template with sprig's functions,
    the template language of tk's name formats), executed by Helm's template engine."""
    import tempfile

    import helm_python as helm

    helm.disable_logging()
    with tempfile.TemporaryDirectory(prefix="tanka-bot-names-") as tmp:
        chart = Path(tmp)
        (chart / "Chart.yaml").write_text(_NAMES_CHART)
        (chart / "templates").mkdir()
        (chart / "templates" / "names").write_text(_NAMES_TEMPLATE % name_format)
        try:
            with helm.Chart.load(chart) as loaded:
                files = loaded.render({"manifests": manifests}, name="names")
        except helm.HelmError as exc:
            raise HelmLibraryError(str(exc)) from None
    text = next(iter(files.values()), "")
    return text.split("\x1e")[: len(manifests)]
