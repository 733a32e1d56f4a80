"""What a check found: one Finding per problem, and the report of a whole run.

A finding names the environment, the object (kind, namespace, name) and, for schema errors, the
field path, so a person can find the line to change. Levels:

- `error`: a schema error, or a policy's `deny`/`violation`: the change should not be merged as is.
- `warning`: a policy's `warn`: worth a look, never blocking.
- `unchecked`: a kind with no schema (typically a CRD): not validated, not an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    UNCHECKED = "unchecked"


class Checker(StrEnum):
    SCHEMA = "schema"
    POLICY = "policy"


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """The rendered object a finding is about."""

    kind: str
    name: str
    namespace: str = ""
    api_version: str = ""

    @classmethod
    def of(cls, manifest: dict[str, Any]) -> ObjectRef:
        metadata = manifest.get("metadata")
        meta = metadata if isinstance(metadata, dict) else {}
        name = meta.get("name") or meta.get("generateName") or ""
        return cls(
            kind=str(manifest.get("kind", "")),
            name=str(name),
            namespace=str(meta.get("namespace") or ""),
            api_version=str(manifest.get("apiVersion", "")),
        )

    def label(self) -> str:
        """`Kind/namespace/name`, or `Kind/name` for cluster-scoped objects (kubectl's order)."""
        parts = [self.kind, self.namespace, self.name] if self.namespace else [self.kind, self.name]
        return "/".join(p for p in parts if p)


@dataclass(frozen=True, slots=True)
class Finding:
    env: str  # the environment's directory (and [name] for inline environments)
    obj: ObjectRef
    level: Level
    source: Checker
    message: str
    path: str = ""  # schema findings: the field, e.g. spec.template.spec.containers[0].image
    rule: str = ""  # policy findings: the rule, e.g. main.deny or main.deployment.warn

    def line(self) -> str:
        where = self.obj.label() + (f" {self.path}" if self.path else "")
        tag = f"{self.source.value}:{self.rule}" if self.rule else self.source.value
        return f"{self.level.value}: {self.env}: {where}: {self.message} [{tag}]"

    def to_json(self) -> dict[str, Any]:
        return {
            "env": self.env,
            "level": self.level.value,
            "source": self.source.value,
            "apiVersion": self.obj.api_version,
            "kind": self.obj.kind,
            "namespace": self.obj.namespace,
            "name": self.obj.name,
            "path": self.path,
            "rule": self.rule,
            "message": self.message,
        }
