"""tk's processing pipeline after extraction, in tk's order (pkg/process/process.go).

Namespace injection -> `tanka.dev/environment` label -> resourceDefaults -> `-t` target filters ->
sort. Manifests are changed in place, as tk does, and returned as a new list.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tools.tanka.errors import TankaError
from tools.tanka.kind_order import TK_KIND_ORDER
from tools.tanka.pipeline.targets import Targets, parse_targets

if TYPE_CHECKING:
    from tools.tanka.env.spec import Environment

Manifest = dict[str, Any]

ENV_LABEL = "tanka.dev/environment"
NAMESPACED_ANNOTATION = "tanka.dev/namespaced"
DEFAULT_LABEL_FIELDS = (".metadata.name", ".metadata.namespace")

# Kinds tk knows to be cluster-wide; custom cluster-scoped kinds are not known and get a namespace.
CLUSTER_WIDE_KINDS = frozenset(
    [
        "APIService",
        "CertificateSigningRequest",
        "ClusterRole",
        "ClusterRoleBinding",
        "ComponentStatus",
        "CSIDriver",
        "CSINode",
        "CustomResourceDefinition",
        "MutatingWebhookConfiguration",
        "Namespace",
        "Node",
        "NodeMetrics",
        "PersistentVolume",
        "PodSecurityPolicy",
        "PriorityClass",
        "RuntimeClass",
        "SelfSubjectAccessReview",
        "SelfSubjectRulesReview",
        "StorageClass",
        "SubjectAccessReview",
        "TokenReview",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
    ]
)

# tk sorts by kind in this order first (sort.go); unknown kinds go after every known one.
_KIND_INDEX = {kind: index for index, kind in enumerate(TK_KIND_ORDER)}


@dataclass(frozen=True, slots=True)
class ProcessOptions:
    """What the pipeline needs from the environment (tk's v1alpha1.Environment) and the CLI."""

    env_name: str = ""  # metadata.name
    env_namespace: str = ""  # metadata.namespace: the entrypoint relative to the root
    default_namespace: str = "default"  # spec.namespace; "" turns namespace injection off
    inject_labels: bool = False
    label_fields: tuple[str, ...] = ()  # spec.tankaEnvLabelFromFields
    default_annotations: Mapping[str, str] = field(default_factory=dict)
    default_labels: Mapping[str, str] = field(default_factory=dict)
    targets: tuple[str, ...] = ()  # -t expressions
    # The environment as nested fields by JSON name, for tankaEnvLabelFromFields lookups.
    env_fields: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_environment(cls, env: Environment, targets: Sequence[str] = ()) -> ProcessOptions:
        return cls(
            env_name=env.name,
            env_namespace=env.metadata_namespace,
            default_namespace=env.namespace,
            inject_labels=env.inject_labels,
            label_fields=tuple(env.tanka_env_label_from_fields),
            default_annotations=dict(env.resource_defaults.annotations),
            default_labels=dict(env.resource_defaults.labels),
            targets=tuple(targets),
            env_fields=_env_fields(env),
        )


def _env_fields(env: Environment) -> dict[str, Any]:
    """Every Go struct field tk's label lookup can reach, empty ones included (no omitempty)."""
    return {
        "apiVersion": env.api_version,
        "kind": env.kind,
        "metadata": {"name": env.name, "namespace": env.metadata_namespace, "labels": env.labels},
        "spec": {
            "apiServer": env.api_server,
            "namespace": env.namespace,
            "diffStrategy": env.diff_strategy,
            "applyStrategy": env.apply_strategy,
            "injectLabels": env.inject_labels,
            "exportJsonnetImplementation": env.export_jsonnet_implementation,
            "expectVersions": {"tanka": env.expect_versions_tanka},
        },
    }


def process(manifests: Sequence[Manifest], options: ProcessOptions) -> list[Manifest]:
    """Namespaces, labels, resource defaults, target filters and sort, as tk's Process."""
    targets = parse_targets(options.targets)  # bad expressions fail before anything changes
    out = list(manifests)
    inject_namespace(out, options.default_namespace)
    if options.inject_labels:
        label = env_label(options)
        for manifest in out:
            _labels(manifest)[ENV_LABEL] = label
    apply_resource_defaults(out, options.default_annotations, options.default_labels)
    if targets:
        out = filter_targets(out, targets)
    sort_manifests(out)
    return out


def _metadata(manifest: Manifest) -> dict[str, Any]:
    metadata = manifest.get("metadata")
    if not isinstance(metadata, dict):
        metadata = manifest["metadata"] = {}
    return metadata


def _string_map(metadata: dict[str, Any], key: str) -> dict[str, Any]:
    """tk's safeMSI: the map at `key`, created (replacing any non-map) when needed."""
    value = metadata.get(key)
    if not isinstance(value, dict):
        value = metadata[key] = {}
    return value


def _labels(manifest: Manifest) -> dict[str, Any]:
    return _string_map(_metadata(manifest), "labels")


def inject_namespace(manifests: Sequence[Manifest], namespace: str) -> None:
    """tk's Namespace: set metadata.namespace on namespaced objects that lack a string one.

    An explicit `""` is kept (tk's code, despite its docs). Reading the annotations creates an
    empty map, and an empty map is then removed, so `annotations: {}` disappears from output.
    """
    if namespace == "":
        return
    for manifest in manifests:
        metadata = _metadata(manifest)
        annotations = _string_map(metadata, "annotations")
        namespaced = manifest.get("kind") not in CLUSTER_WIDE_KINDS
        if NAMESPACED_ANNOTATION in annotations:
            namespaced = annotations[NAMESPACED_ANNOTATION] == "true"
        if namespaced and not isinstance(metadata.get("namespace"), str):
            metadata["namespace"] = namespace
        if not annotations:
            del metadata["annotations"]


def apply_resource_defaults(
    manifests: Sequence[Manifest], annotations: Mapping[str, str], labels: Mapping[str, str]
) -> None:
    """tk's ResourceDefaults: add each default annotation/label the manifest does not have."""
    for manifest in manifests:
        for key, value in annotations.items():
            _string_map(_metadata(manifest), "annotations").setdefault(key, value)
        for key, value in labels.items():
            _labels(manifest).setdefault(key, value)


def env_label(options: ProcessOptions) -> str:
    """tk's NameLabel: the first 48 hex digits of sha256 of the colon-joined field values."""
    fields = options.label_fields or DEFAULT_LABEL_FIELDS
    source = options.env_fields or {
        "metadata": {"name": options.env_name, "namespace": options.env_namespace}
    }
    values = [_field_value(source, field_path) for field_path in fields]
    return hashlib.sha256(":".join(values).encode()).hexdigest()[:48]


def _field_value(source: Mapping[str, Any], field_path: str) -> str:
    value: Any = source
    for step in field_path.removeprefix(".").split("."):
        if not isinstance(value, Mapping) or step not in value:
            raise _label_error(f"no field {field_path!r} in the environment")
        # tk takes an arbitrary entry of a map (Go map order); looking the key up is what it means.
        value = value[step]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    raise _label_error("unsupported value type")


def _label_error(reason: str) -> TankaError:
    return TankaError(
        "failed to get name label: failed to retrieve field values for label: "
        f"could not get struct value at path: {reason}"
    )


def filter_targets(manifests: Sequence[Manifest], targets: Targets) -> list[Manifest]:
    return [m for m in manifests if targets.keeps(kind_name(m))]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def kind_name(manifest: Manifest) -> str:
    """`<kind>/<metadata.name>` as the target filters see it."""
    return f"{_text(manifest.get('kind'))}/{_text(_metadata(manifest).get('name'))}"


def sort_key(manifest: Manifest) -> tuple[int, str, str, str, str]:
    kind = _text(manifest.get("kind"))
    metadata = _metadata(manifest)
    return (
        _KIND_INDEX.get(kind, len(TK_KIND_ORDER)),
        kind,
        _text(metadata.get("namespace")),
        _text(metadata.get("name")),
        _text(metadata.get("generateName")),
    )


def sort_manifests(manifests: list[Manifest]) -> None:
    """tk's stable sort: kind order, kind, namespace, name, generateName (apiVersion ignored)."""
    manifests.sort(key=sort_key)
