"""`tk status` without a cluster: the environment's spec and its resources, as tk prints them.

tk's status (cmd/tk/status.go) first connects to the cluster: it prints the kubeconfig context and
cluster, and shows the diff strategy the cluster implies. Here no cluster is contacted, so those
two lines are left out and the diff strategy is the spec's own (empty unless set); the rest is
tk's text: `Environment:` with each spec field as Go's `structs.Map` names it, sorted, its value
in fmt's %v form (slices `[a b]`, maps `map[k:v]` with sorted keys, nested structs as maps), then
`Resources:` as a tabwriter table (padding 4) of namespace and kind/name, in tk's order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tools.tanka.env.spec import Environment


def spec_fields(env: Environment) -> dict[str, Any]:
    """v1alpha1.Spec as structs.Map gives it: Go field names, nested structs as maps."""
    return {
        "APIServer": env.api_server,
        "ContextNames": list(env.context_names),
        "Namespace": env.namespace,
        "DiffStrategy": env.diff_strategy,
        "ApplyStrategy": env.apply_strategy,
        "InjectLabels": env.inject_labels,
        "TankaEnvLabelFromFields": list(env.tanka_env_label_from_fields),
        "ResourceDefaults": {
            "Annotations": dict(env.resource_defaults.annotations),
            "Labels": dict(env.resource_defaults.labels),
        },
        "ExpectVersions": {"Tanka": env.expect_versions_tanka},
        "ExportJsonnetImplementation": env.export_jsonnet_implementation,
    }


def go_value(value: Any) -> str:
    """fmt's %v of the values a spec holds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        items = sorted(value.items(), key=lambda item: str(item[0]).encode())
        return "map[" + " ".join(f"{k}:{go_value(v)}" for k, v in items) + "]"
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    return str(value)


def format_status(env: Environment, manifests: Sequence[Mapping[str, Any]]) -> str:
    lines = ["Environment:"]
    fields = spec_fields(env)
    lines += [f"  {key}: {go_value(fields[key])}" for key in sorted(fields, key=str.encode)]
    lines.append("Resources:")
    rows = [("  NAMESPACE", "OBJECTSPEC")]
    for manifest in manifests:
        metadata = manifest.get("metadata") or {}
        rows.append(
            (
                f"  {metadata.get('namespace') or ''}",
                f"{manifest.get('kind') or ''}/{metadata.get('name') or ''}",
            )
        )
    width = max(len(first) for first, _ in rows) + 4  # tabwriter: widest cell plus padding
    lines += [first.ljust(width) + second for first, second in rows]
    return "\n".join(lines) + "\n"
