"""The Environment model (tk's v1alpha1.Environment): parsing spec.json and writing Go JSON.

Parsing follows tk's spec.Parse: start from the defaults (apiVersion, kind, spec.namespace
"default"), decode the JSON over them with encoding/json's rules, apply the deprecated top-level
keys (`namespace`, `server`, `team`), prefix `https://` to an apiServer without a scheme.
Serialisation follows json.Marshal of the Go struct: field order, omitempty, Go string escapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.tanka.errors import SpecError
from tools.tanka.gojson import decode as go_decode
from tools.tanka.gojson.decode import ANY, BOOL, STRING, STRING_LIST, STRING_MAP, Field, Struct
from tools.tanka.gojson.encode import go_dumps, sorted_maps

API_VERSION = "tanka.dev/v1alpha1"
KIND = "Environment"
_SCHEME = re.compile(r"^.+://")

_METADATA = Struct(
    "v1alpha1.Metadata",
    (Field("name", STRING), Field("namespace", STRING), Field("labels", STRING_MAP)),
)
_RESOURCE_DEFAULTS = Struct(
    "v1alpha1.ResourceDefaults", (Field("annotations", STRING_MAP), Field("labels", STRING_MAP))
)
_EXPECT_VERSIONS = Struct("v1alpha1.ExpectVersions", (Field("tanka", STRING),))
_SPEC = Struct(
    "v1alpha1.Spec",
    (
        Field("apiServer", STRING),
        Field("contextNames", STRING_LIST),
        Field("namespace", STRING),
        Field("diffStrategy", STRING),
        Field("applyStrategy", STRING),
        Field("injectLabels", BOOL),
        Field("tankaEnvLabelFromFields", STRING_LIST),
        Field("resourceDefaults", _RESOURCE_DEFAULTS),
        Field("expectVersions", _EXPECT_VERSIONS),
        Field("exportJsonnetImplementation", STRING),
    ),
)
_ENVIRONMENT = Struct(
    "v1alpha1.Environment",
    (
        Field("apiVersion", STRING),
        Field("kind", STRING),
        Field("metadata", _METADATA),
        Field("spec", _SPEC),
        Field("data", ANY),
    ),
)


@dataclass(slots=True)
class ResourceDefaults:
    annotations: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Environment:
    """One Tanka environment. `namespace` is spec.namespace (the Kubernetes default namespace);
    `metadata_namespace` is tk's metadata.namespace (the entrypoint relative to the root)."""

    name: str = ""
    metadata_namespace: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    api_version: str = API_VERSION
    kind: str = KIND
    api_server: str = ""
    context_names: list[str] = field(default_factory=list)
    namespace: str = "default"
    diff_strategy: str = ""
    apply_strategy: str = ""
    inject_labels: bool = False
    tanka_env_label_from_fields: list[str] = field(default_factory=list)
    resource_defaults: ResourceDefaults = field(default_factory=ResourceDefaults)
    expect_versions_tanka: str = ""
    export_jsonnet_implementation: str = ""
    data: Any = None  # inline environments: the resources; None = absent
    # Where it lives; not part of tk's JSON.
    path: str = ""  # base directory relative to the root
    root: Path | None = None
    base: Path | None = None
    entrypoint: Path | None = None  # absolute
    inline: bool = False
    warnings: tuple[str, ...] = ()  # deprecation notices tk only logs

    def to_go_dict(self, *, with_data: bool = True) -> dict[str, Any]:
        """The struct as json.Marshal sees it: field order, omitempty, sorted maps."""
        metadata: dict[str, Any] = {}
        _put(metadata, "name", self.name)
        _put(metadata, "namespace", self.metadata_namespace)
        _put(metadata, "labels", dict(sorted(self.labels.items())))
        spec: dict[str, Any] = {}
        _put(spec, "apiServer", self.api_server)
        _put(spec, "contextNames", list(self.context_names))
        spec["namespace"] = self.namespace
        _put(spec, "diffStrategy", self.diff_strategy)
        _put(spec, "applyStrategy", self.apply_strategy)
        _put(spec, "injectLabels", self.inject_labels)
        _put(spec, "tankaEnvLabelFromFields", list(self.tanka_env_label_from_fields))
        defaults: dict[str, Any] = {}
        _put(defaults, "annotations", dict(sorted(self.resource_defaults.annotations.items())))
        _put(defaults, "labels", dict(sorted(self.resource_defaults.labels.items())))
        spec["resourceDefaults"] = defaults
        spec["expectVersions"] = (
            {"tanka": self.expect_versions_tanka} if (self.expect_versions_tanka) else {}
        )
        _put(spec, "exportJsonnetImplementation", self.export_jsonnet_implementation)
        out: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": metadata,
            "spec": spec,
        }
        if with_data and self.data is not None:
            out["data"] = sorted_maps(self.data)
        return out

    def to_go_json(self, *, with_data: bool = True) -> str:
        """Compact JSON exactly as tk's json.Marshal writes it."""
        return go_dumps(self.to_go_dict(with_data=with_data))


def _put(target: dict[str, Any], key: str, value: Any) -> None:
    if value:  # Go's omitempty: "", false, empty slice/map
        target[key] = value


def parse_spec(text: str | bytes, metadata_namespace: str) -> Environment:
    """tk's spec.Parse: defaults, Go decoding, deprecations, apiServer normalisation.

    Raises SpecError with tk's texts (`parsing spec.json: json: ...`, or a mistyped deprecated
    field). Deprecation notices are kept in `.warnings` (tk logs them for static environments).
    """
    try:
        raw = go_decode.loads(text)
    except go_decode.GoJsonError as exc:
        raise SpecError(f"parsing spec.json: {exc}") from None
    return parse_spec_value(raw, metadata_namespace)


def parse_spec_value(raw: Any, metadata_namespace: str) -> Environment:
    """parse_spec for an already decoded JSON value (an inline Environment object)."""
    fields: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"labels": {}},
        "spec": {"namespace": "default"},
    }
    try:
        go_decode.decode_struct(raw, _ENVIRONMENT, fields)
    except go_decode.GoJsonError as exc:
        raise SpecError(f"parsing spec.json: {exc}") from None
    env = _from_fields(fields)
    env.warnings = _apply_deprecated(env, raw)
    if env.api_server and not _SCHEME.match(env.api_server):
        env.api_server = "https://" + env.api_server
    env.metadata_namespace = metadata_namespace
    return env


def _from_fields(fields: dict[str, Any]) -> Environment:
    metadata = fields.get("metadata", {})
    spec = fields.get("spec", {})
    defaults = spec.get("resourceDefaults", {})
    return Environment(
        name=metadata.get("name", ""),
        metadata_namespace=metadata.get("namespace", ""),
        labels=dict(metadata.get("labels", {})),
        api_version=fields["apiVersion"],
        kind=fields["kind"],
        api_server=spec.get("apiServer", ""),
        context_names=list(spec.get("contextNames", [])),
        namespace=spec.get("namespace", "default"),
        diff_strategy=spec.get("diffStrategy", ""),
        apply_strategy=spec.get("applyStrategy", ""),
        inject_labels=spec.get("injectLabels", False),
        tanka_env_label_from_fields=list(spec.get("tankaEnvLabelFromFields", [])),
        resource_defaults=ResourceDefaults(
            dict(defaults.get("annotations", {})), dict(defaults.get("labels", {}))
        ),
        expect_versions_tanka=spec.get("expectVersions", {}).get("tanka", ""),
        export_jsonnet_implementation=spec.get("exportJsonnetImplementation", ""),
        data=fields.get("data"),
    )


def _apply_deprecated(env: Environment, raw: Any) -> tuple[str, ...]:
    """Top-level `namespace`, `server`, `team` (tk's handleDeprecated; exact key match)."""
    if not isinstance(raw, dict):
        return ()
    notices: list[str] = []
    if "namespace" in raw and env.namespace == "":
        env.namespace = _deprecated_string(raw, "namespace")
        notices.append(_notice("namespace", "spec.namespace"))
    if "server" in raw and env.api_server == "":
        env.api_server = _deprecated_string(raw, "server")
        notices.append(_notice("server", "spec.apiServer"))
    if "team" in raw and "team" not in env.labels:
        env.labels["team"] = _deprecated_string(raw, "team")
        notices.append(_notice("team", "metadata.labels.team"))
    return tuple(notices)


def _deprecated_string(raw: dict[str, Any], key: str) -> str:
    value = raw[key]
    if not isinstance(value, str):
        # tk formats the zero value left by its failed type assertion, so the type always
        # reads "string"; keep its words.
        raise SpecError(f"`{key}` is of type string but should be string")
    return value


def _notice(old: str, new: str) -> str:
    return f"Warning: `{old}` is deprecated, use `{new}` instead."
