"""Kubernetes manifests in evaluated Jsonnet, found as tk's process.Extract and Unwrap find them.

The walk descends objects in sorted key order (skipping null fields, dropping `__ksonnet`) and
arrays in order; an object whose `apiVersion` and `kind` are non-empty strings is a manifest and
is validated, not descended. Reaching a string, number or bool is an error naming the innermost
object around it. Any manifest with an `items` array is then replaced by its items (Lists).
Error texts are tk's, so a user can search for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tools.tanka.errors import TankaError
from tools.tanka.goyaml.emit import dump_yaml
from tools.tanka.redact import is_secret, redact_deep

Manifest = dict[str, Any]
_SAMPLE_LINES = 10


def go_type(value: Any) -> str:
    """Go's %T of a value decoded by encoding/json."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "[]interface {}" if isinstance(value, list) else "map[string]interface {}"


class ManifestSchemaError(TankaError):
    """tk's SchemaError: a manifest with missing or mistyped fields."""

    def __init__(self, name: str, fields: dict[str, str], manifest: Manifest) -> None:
        lines = [f"{name or 'Resource'} has missing or invalid fields:"]
        lines += [f"  - {field}: {problem}" for field, problem in fields.items()]
        # Unlike tk, a Secret's values are hidden: this text reaches the model and Slack.
        shown = _sample(dump_yaml(redact_deep(manifest)))
        text = "\n".join(lines) + "\n\nPlease check below object:\n" + shown
        super().__init__(text)
        self.name = name
        self.fields = fields


def _sample(text: str) -> str:
    """The first ten lines, two-space indented, `...` when cut (tk's SampleString.Indent(2))."""
    lines = text.strip().split("\n")
    cut = len(lines) >= _SAMPLE_LINES
    lines = lines[:_SAMPLE_LINES] + (["..."] if cut else [])
    return "\n".join("  " + line for line in lines)


class PrimitiveReachedError(TankaError):
    """tk's ErrorPrimitiveReached: the walk met a value that is neither object, array nor null."""

    def __init__(
        self,
        path: str,
        reason: str | None,
        container: Manifest | None,
        *,
        inside_secret: bool = False,
    ) -> None:
        shown = reason if reason is not None else "%!s(<nil>)"  # Go's rendering of a nil error
        # tk renders the object with yaml.v3; the yaml.v2 rendering differs only in indentation.
        # Unlike tk, Secret values are hidden (`inside_secret`: the object is part of a Secret).
        safe = redact_deep(container if container is not None else {}, inside_secret=inside_secret)
        body = dump_yaml(safe)
        super().__init__(f"found invalid Kubernetes object (at {path}): {shown}\n\n{body}")
        self.path = path
        self.reason = reason


class _Primitive(Exception):
    """Internal: carries the primitive's position up to the innermost enclosing object."""

    def __init__(self, base: str) -> None:
        super().__init__(base)
        self.base = base


def _path(segments: list[str]) -> str:
    return "." + ".".join(segments)


def manifest_problem(obj: dict[str, Any]) -> str | None:
    """Why `obj` is not a manifest (tk's isKubernetesManifest), or None when it is one."""
    for key in ("apiVersion", "kind"):
        value = obj.get(key)
        if value is None:
            return f'missing attribute "{key}"'
        if not isinstance(value, str):
            return f'attribute "{key}" is not a string, it is a {go_type(value)}'
        if value == "":
            return f'attribute "{key}" is empty'
    return None


def _string_map_problem(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        return f"must be object, but got '{go_type(value)}' instead"
    for key in sorted(value):
        if not isinstance(value[key], str):
            return f"contains non-string field '{key}' of type '{go_type(value[key])}'"
    return None


def schema_problems(manifest: Manifest) -> dict[str, str]:
    """tk's Manifest.Verify: field -> problem; empty when the manifest is valid."""
    problems: dict[str, str] = {}
    for key in ("kind", "apiVersion"):
        if not isinstance(manifest.get(key), str):
            problems[key] = "missing or not of string type"
    if is_list(manifest):
        return problems  # Lists have no metadata
    metadata = manifest.get("metadata")
    meta = metadata if isinstance(metadata, dict) else {}
    if not isinstance(metadata, dict):
        problems["metadata"] = "missing or not an object"
    if not isinstance(meta.get("name"), str) and not isinstance(meta.get("generateName"), str):
        problems["metadata.name"] = "missing or not of string type"
    for field in ("labels", "annotations"):
        problem = _string_map_problem(meta.get(field))
        if problem is not None:
            problems[f"metadata.{field}"] = problem
    return problems


def verify(manifest: Manifest, name: str) -> None:
    problems = schema_problems(manifest)
    if problems:
        raise ManifestSchemaError(name, problems, manifest)


def is_list(manifest: Manifest) -> bool:
    return isinstance(manifest.get("items"), list)


def _walk(value: Any, path: list[str], found: dict[str, Manifest], in_secret: bool) -> None:
    """`in_secret`: an enclosing object is a Secret (kind Secret but no valid manifest)."""
    if isinstance(value, dict):
        _walk_object(value, path, found, in_secret)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk(item, [*path, f"[{index}]"], found, in_secret)
    else:
        raise _Primitive(_path(path[:-1]))


def _walk_object(
    obj: dict[str, Any], path: list[str], found: dict[str, Manifest], in_secret: bool
) -> None:
    obj = {k: v for k, v in obj.items() if k != "__ksonnet"}
    problem = manifest_problem(obj)
    if problem is None:
        verify(obj, _path(path))
        found[_path(path)] = obj
        return
    below_secret = in_secret or is_secret(obj)
    for key in sorted(obj):
        if obj[key] is None:
            continue  # a field left null by a false `if` in Jsonnet
        try:
            _walk(obj[key], [*path, key], found, below_secret)
        except _Primitive as reached:
            raise PrimitiveReachedError(
                reached.base, problem, obj, inside_secret=in_secret
            ) from None


def extract_by_path(data: Any) -> dict[str, Manifest]:
    """tk's Extract: path (`.a.b`, `.[0]`) -> manifest. Null data has no manifests."""
    found: dict[str, Manifest] = {}
    if data is None:
        return found
    try:
        _walk(data, [], found, False)
    except _Primitive as reached:
        raise PrimitiveReachedError(reached.base, None, None) from None
    return found


def unwrap(found: dict[str, Manifest]) -> dict[str, Manifest]:
    """tk's Unwrap: every manifest with an `items` array is replaced by its validated items."""
    out: dict[str, Manifest] = {}
    for path, manifest in found.items():
        if not is_list(manifest):
            out[path] = manifest
            continue
        for index, item in enumerate(manifest["items"]):
            if not isinstance(item, dict):
                # tk prints the type of its failed conversion's zero value, always this map type.
                raise TankaError(
                    "unwrapped list item is not an object, but 'map[string]interface {}'"
                )
            name = f"{path}.items[{index}]"
            verify(item, name)
            out[name] = item
    return out


def extract(data: Any, env_name: str | None = None) -> list[Manifest]:
    """Extract and unwrap, in path order. With `env_name`, extraction errors carry tk's prefix."""
    try:
        found = extract_by_path(data)
    except TankaError as exc:
        if env_name is None:
            raise
        raise TankaError(f"got an error while extracting env `{env_name}`: {exc}") from exc
    return list(unwrap(found).values())


def extract_manifests(data: Any) -> Iterator[Manifest]:
    """Alias used by environment selection: the manifests of `data` after unwrapping."""
    yield from extract(data)
