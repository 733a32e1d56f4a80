"""Strict validation of rendered objects against Kubernetes' OpenAPI schemas, offline.

The schemas are the JSON Schema files the `kubernetes-validate` package ships (one folder per
Kubernetes minor version, `-strict` variants forbid unknown fields); nothing is downloaded. We
read its files rather than call `kubernetes_validate.validate`, which re-reads the 1.8 MB
definitions file on every call and stops at the first error: here each version's definitions are
loaded once, each kind's validator is built once, and every error of an object is reported.

A kind without a bundled schema (a CRD) is "unchecked" unless the repository brings a schema for
it (`SchemaCatalog(extra_dir=...)`), named as kubeconform and its openapi2jsonschema tool name
them; see `custom_schema_names`.
"""

from __future__ import annotations

import difflib
import json
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from referencing import Registry, Resource

from tools.tanka.check.errors import SchemaSettingError

_SCHEMA_PACKAGE = "kubernetes_validate"
_SCHEMA_FOLDER = "kubernetes-json-schema"
_MAX_ENUM_SHOWN = 8
_MAX_MESSAGE = 200


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    path: str  # dotted, list items as [i]; "" for the object itself
    message: str


def _bundled_root() -> Traversable:
    return resources.files(_SCHEMA_PACKAGE).joinpath(_SCHEMA_FOLDER)


def _minor(text: str) -> tuple[int, int] | None:
    """(1, 30) for "1.30", "v1.30", "1.30.2"; None when it is no version."""
    parts = text.strip().removeprefix("v").split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        return None
    return int(parts[0]), int(parts[1])


@cache
def bundled_versions() -> tuple[str, ...]:
    """The Kubernetes minor versions with bundled schemas, oldest first ("1.25", ...)."""
    found = set()
    for entry in _bundled_root().iterdir():
        name = entry.name
        if name.endswith("-local-strict"):
            minor = _minor(name.removesuffix("-local-strict"))
            if minor is not None:
                found.add(minor)
    return tuple(f"{a}.{b}" for a, b in sorted(found))


def version_problem(wanted: str) -> str | None:
    """Why `wanted` names no bundled schema version (None when it does)."""
    versions = bundled_versions()
    shown = f"{versions[0]} to {versions[-1]}"
    minor = _minor(wanted)
    if minor is None:
        return f"not a Kubernetes version; set a minor version such as {versions[-1]} ({shown})"
    if f"{minor[0]}.{minor[1]}" not in versions:
        return (
            f"no schemas bundled for Kubernetes {minor[0]}.{minor[1]}; set one of {shown}, or "
            "unset it for the newest"
        )
    return None


def resolve_version(wanted: str | None) -> str:
    """The bundled minor version to use for TANKA_BOT_KUBERNETES_VERSION (None: the newest)."""
    if not wanted:
        return bundled_versions()[-1]
    problem = version_problem(wanted)
    minor = _minor(wanted)
    if problem is not None or minor is None:
        raise SchemaSettingError(f"TANKA_BOT_KUBERNETES_VERSION={wanted}: {problem}")
    return f"{minor[0]}.{minor[1]}"


def split_api_version(api_version: str) -> tuple[str, str]:
    """("apps", "v1") for "apps/v1"; ("", "v1") for the core group."""
    group, _, version = api_version.rpartition("/")
    return group, version


def custom_schema_names(api_version: str, kind: str) -> list[str]:
    """File names (relative to the schema folder) tried for a kind, in order.

    - `<group>/<kind>_<version>.json`: the layout of the community CRD schema catalogs;
    - `<kind>_<version>.json` and `<group>_<kind>_<version>.json`: openapi2jsonschema's outputs;
    - `<kind>-<group prefix>-<version>.json`: the kubernetes-json-schema naming, as for the
      built-in kinds (`deployment-apps-v1.json`, `service-v1.json`).
    """
    group, version = split_api_version(api_version)
    kind = kind.lower()
    names = []
    if group:
        names.append(f"{group}/{kind}_{version}.json")
    names.append(f"{kind}_{version}.json")
    if group:
        names.append(f"{group}_{kind}_{version}.json")
        names.append(f"{kind}-{group.split('.')[0]}-{version}.json")
    else:
        names.append(f"{kind}-{version}.json")
    return names


def _bundled_name(api_version: str, kind: str) -> str:
    group, version = split_api_version(api_version)
    prefix = f"{group.split('.')[0]}-" if group else ""
    return f"{kind.lower()}-{prefix}{version}.json"


def _declares(schema: dict[str, Any], api_version: str, kind: str) -> bool:
    """Whether a bundled schema is the one of this exact group/version/kind: names are cut at
    the group's first dot, so `gateway-networking-v1.json` must not validate Istio's Gateway."""
    group, version = split_api_version(api_version)
    for gvk in schema.get("x-kubernetes-group-version-kind", ()):
        if (gvk.get("group", ""), gvk.get("version"), gvk.get("kind")) == (group, version, kind):
            return True
    return False


@cache
def _definitions(version: str) -> Registry[Any]:
    """The version's shared definitions, which every bundled schema points into by absolute
    URI (its `$id`); parsed once per process."""
    text = _version_folder(version).joinpath("_definitions.json").read_text(encoding="utf-8")
    registry: Registry[Any] = Resource.from_contents(json.loads(text)) @ Registry()
    return registry


def _version_folder(version: str) -> Traversable:
    return _bundled_root().joinpath(f"v{version}.0-local-strict")


@cache
def bundled_validator(version: str, api_version: str, kind: str) -> Validator | None:
    """The strict validator of a built-in kind, built once per process; None for other kinds."""
    entry = _version_folder(version).joinpath(_bundled_name(api_version, kind))
    if not entry.is_file():
        return None
    schema = json.loads(entry.read_text(encoding="utf-8"))
    if not _declares(schema, api_version, kind):
        return None
    return _remembering_validator(version)(schema, registry=_definitions(version))


# Passed (definition, subtree) pairs kept per Kubernetes version; past this many, forgotten.
REMEMBERED_LIMIT = 200_000


@cache
def _remembering_validator(version: str) -> type[Validator]:
    """Draft 2020-12 validation whose `$ref`s skip a subtree already found valid against the
    same definition: objects of generated environments (or of one chart) repeat the same
    containers, ports, env entries and selectors, and validating each again was most of a
    proposal's checks. A subtree's validity against a definition is a pure function of the two:
    the bundled schemas' `$ref`s are absolute paths into one version's definitions (no dynamic
    references, no `unevaluated*` keywords, which look beyond the subtree), so a ref's text and
    the subtree's canonical JSON name the result. Only passes are kept: a failing subtree is
    validated again, so its errors come out exactly as an uncached validation's."""
    passed: set[tuple[str, str]] = set()
    follow = jsonschema.Draft202012Validator.VALIDATORS["$ref"]

    def ref(
        validator: Validator, ref: str, instance: Any, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        try:
            key = (ref, json.dumps(instance, sort_keys=True))
        except (TypeError, ValueError):  # not JSON: validate as usual, remember nothing
            yield from follow(validator, ref, instance, schema)
            return
        if key in passed:
            return
        errors = list(follow(validator, ref, instance, schema))
        if not errors:
            if len(passed) >= REMEMBERED_LIMIT:
                passed.clear()
            passed.add(key)
        yield from errors

    extend = jsonschema.validators.extend
    remembering: type[Validator] = extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator, {"$ref": ref}
    )
    return remembering


class SchemaCatalog:
    """Validators per kind for one Kubernetes version, plus the repository's own schemas.

    Cheap to create for each check (the bundled validators are cached per process); the
    repository's schema files are read again by each catalog, since a session may edit them.
    """

    def __init__(
        self, version: str | None = None, extra_dir: Path | None = None, *, shown: str = ""
    ) -> None:
        self.version = resolve_version(version)
        self.extra_dir = extra_dir if extra_dir is not None and extra_dir.is_dir() else None
        # How messages name the repository's schema folder (relative, even when it is absent).
        self.shown = shown or (str(extra_dir) if extra_dir is not None else "")
        self._custom: dict[tuple[str, str], Validator | None] = {}
        self._lock = threading.Lock()

    def validate(self, manifest: dict[str, Any]) -> list[SchemaProblem] | None:
        """Every schema problem of `manifest`; None when its kind has no schema (unchecked)."""
        validator = self.validator(str(manifest.get("apiVersion")), str(manifest.get("kind")))
        if validator is None:
            return None
        problems: set[SchemaProblem] = set()
        for error in validator.iter_errors(manifest):
            problems.update(describe(error))
        return sorted(problems, key=lambda p: (p.path, p.message))

    def validator(self, api_version: str, kind: str) -> Validator | None:
        """The repository's schema for the kind if it has one, else the bundled one."""
        key = (api_version, kind)
        with self._lock:
            if key not in self._custom:
                self._custom[key] = self._custom_schema(api_version, kind)
            custom = self._custom[key]
        return custom or bundled_validator(self.version, api_version, kind)

    def _custom_schema(self, api_version: str, kind: str) -> Validator | None:
        if self.extra_dir is None:
            return None
        for name in custom_schema_names(api_version, kind):
            path = self.extra_dir / name
            if path.is_file():
                return _load_custom(path)
        return None


def _load_custom(path: Path) -> Validator:
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SchemaSettingError(
            f"{path}: not a readable JSON Schema file ({exc}); fix or remove it"
        ) from None
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = _path(exc.absolute_path) or "the top level"
        raise SchemaSettingError(
            f"{path}: not a valid JSON Schema at {where}: {_short(exc.message)}; fix or remove it"
        ) from None
    validator: Validator = cls(schema)
    return validator


def _path(segments: Iterable[Any]) -> str:
    out = ""
    for segment in segments:
        out += f"[{segment}]" if isinstance(segment, int) else f".{segment}"
    return out.removeprefix(".")


def _join(base: str, key: str) -> str:
    return f"{base}.{key}" if base else key


def _short(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"  # Jsonnet numbers are floats
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _types(schema: Any) -> list[str]:
    """The non-null types a (sub)schema allows: Kubernetes' schemas allow null everywhere."""
    if not isinstance(schema, Mapping):
        return []
    declared = schema.get("type", [])
    listed = [declared] if isinstance(declared, str) else list(declared)
    return [t for t in listed if t != "null"]


def describe(error: ValidationError) -> Iterator[SchemaProblem]:
    """One problem per offending field, in words that never quote the offending value (it may
    be a Secret's): unknown field, missing required field, wrong type, value not allowed."""
    path = _path(error.absolute_path)
    instance, kind = error.instance, error.validator
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    value: Any = error.validator_value
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = sorted(schema.get("properties", {}))
        for key in sorted(k for k in instance if k not in known):
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            yield SchemaProblem(_join(path, key), f"unknown field{hint}")
    elif kind == "required" and isinstance(instance, dict):
        for key in value:
            if key not in instance:
                yield SchemaProblem(_join(path, key), "required field is missing")
    elif kind == "type":
        wanted = " or ".join(_types(schema)) or str(value)
        yield SchemaProblem(path, f"expected {wanted}, got {_json_type(instance)}")
    elif kind in ("oneOf", "anyOf") and all(_types(s) for s in value):
        wanted = " or ".join(t for s in value for t in _types(s))
        yield SchemaProblem(path, f"expected {wanted}, got {_json_type(instance)}")
    elif kind == "enum":
        allowed: Sequence[Any] = [v for v in value if v is not None]
        shown = ", ".join(json.dumps(v) for v in allowed[:_MAX_ENUM_SHOWN])
        more = ", ..." if len(allowed) > _MAX_ENUM_SHOWN else ""
        yield SchemaProblem(path, f"value not allowed; allowed: {shown}{more}")
    else:
        # Other keywords (pattern, minimum, ...): jsonschema's text may quote the value, which
        # is scrubbed for Secrets by the caller (check/secrets.py) like every message.
        yield SchemaProblem(path, f"{kind}: {_short(error.message)}")
