"""Rendered-manifest diff of one environment: two lists of manifests in, per-resource changes out.

Resources are matched by (apiVersion, kind, namespace, name) - never by position, so a different
evaluation or sort order is not a change. Each changed resource gets a unified diff of its YAML
named `apiVersion.kind.namespace.name` (`/` -> `-`), labelled with tk's static-differ prefixes
(`LIVE-`/`MERGED-`) or, when given, the names of the two sides ("base <commit>", "working
tree"); added and removed resources diff against empty content, as `diff -u -N` does. Secret
values are redacted on both sides before anything is rendered (redact.py).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tools.tanka.pipeline.rendered import Identity
from tools.tanka.redact import redact_against

Manifest = Mapping[str, Any]
Dump = Callable[[Manifest], str]  # one manifest -> its YAML document (yaml_emit.dump_yaml)


class Change(StrEnum):
    ADDED = "added"
    CHANGED = "changed"
    REMOVED = "removed"


@dataclass(frozen=True, slots=True, order=True)
class ResourceKey:
    api_version: str
    kind: str
    namespace: str
    name: str
    # Two resources with the same identity in one environment (tk allows it) are told apart by
    # their order of appearance, so neither hides the other.
    occurrence: int = 0

    def diff_name(self) -> str:
        """tk's static-differ file name: apiVersion.kind.namespace.name with `/` -> `-`."""
        text = f"{self.api_version}.{self.kind}.{self.namespace}.{self.name}".replace("/", "-")
        return text if not self.occurrence else f"{text}.{self.occurrence + 1}"

    def label(self) -> str:
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where} ({self.api_version})"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def resource_key(manifest: Manifest, occurrence: int = 0) -> ResourceKey:
    meta = manifest.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    name = _text(meta.get("name")) or _text(meta.get("generateName"))
    return ResourceKey(
        _text(manifest.get("apiVersion")),
        _text(manifest.get("kind")),
        _text(meta.get("namespace")),
        name,
        occurrence,
    )


def index_resources(manifests: Sequence[Manifest]) -> dict[ResourceKey, Manifest]:
    """Manifests by key; repeated identities get increasing `occurrence` numbers."""
    out: dict[ResourceKey, Manifest] = {}
    for manifest in manifests:
        key = resource_key(manifest)
        while key in out:
            key = resource_key(manifest, key.occurrence + 1)
        out[key] = manifest
    return out


@dataclass(frozen=True, slots=True)
class ResourceDiff:
    key: ResourceKey
    change: Change
    unified: str  # the `diff -u -N` text, ending with a newline


def unified_diff(name: str, old: str, new: str, sides: tuple[str, str] | None = None) -> str:
    """The unified diff of two texts of resource `name`.

    Without `sides`, tk's static-differ form: `diff -u -N LIVE-name MERGED-name`, then the hunks
    under `--- LIVE-name` / `+++ MERGED-name`. With `sides` (what each side is, e.g. "base
    1a2b3c4d5e6f" and "working tree"), `--- name<TAB>old side` / `+++ name<TAB>new side`, the
    place `diff -u` puts a file's date, and no header line.
    """
    if sides is None:
        header_old, header_new, when_old, when_new = f"LIVE-{name}", f"MERGED-{name}", "", ""
    else:
        header_old, header_new, (when_old, when_new) = name, name, sides
    lines = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        fromfile=header_old,
        tofile=header_new,
        fromfiledate=when_old,
        tofiledate=when_new,
        lineterm="",
    )
    body = "\n".join(lines)
    if not body:
        return ""
    header = "" if sides is not None else f"diff -u -N {header_old} {header_new}\n"
    return f"{header}{body}\n"


def diff_manifests(
    old: Sequence[Manifest],
    new: Sequence[Manifest],
    *,
    dump: Dump,
    sides: tuple[str, str] | None = None,
) -> list[ResourceDiff]:
    """The resources that differ between two renders of one environment, sorted by key;
    `sides` names the two renders in each unified diff (unified_diff)."""
    before, after = index_resources(old), index_resources(new)
    changes: list[ResourceDiff] = []
    for key in sorted(before.keys() | after.keys()):
        was, now = before.get(key), after.get(key)
        if was is not None and now is not None and _same_data(was, now):
            continue
        old_text = dump(redact_against(was, None)) if was is not None else ""
        new_text = dump(redact_against(now, was)) if now is not None else ""
        if old_text == new_text:
            continue
        text = unified_diff(key.diff_name(), old_text, new_text, sides)
        kind = Change.ADDED if was is None else Change.REMOVED if now is None else Change.CHANGED
        changes.append(ResourceDiff(key, kind, text))
    return changes


def _same_data(a: Manifest, b: Manifest) -> bool:
    """Equal as JSON, so their YAML is equal too: most resources of a diff are unchanged, and
    serialising them to compare costs far more than this. `==` first: unequal values are never
    equal JSON (values from JSON hold no NaN), and a wide change's changed resources end there;
    equal ones are confirmed as JSON text (json tells true from 1, which == does not). A False
    only means the caller compares their YAML."""
    return a == b and json.dumps(a) == json.dumps(b)


@dataclass(slots=True)
class EnvDiff:
    """The diff of one environment. `error` is set when either revision failed to render."""

    env: str  # the environment's label: its directory in the repository (and name when inline)
    resources: list[ResourceDiff] = field(default_factory=list)
    error: str | None = None
    # Set when the whole environment appears or disappears between the revisions.
    env_change: Change | None = None
    # Both revisions fail to render (`error` is the working tree's): not the change's doing.
    already_failing: bool = False
    # Its own values (its label's directory, spec.json's): groups.py reads diffs without them.
    identity: Identity = ()

    def count(self, change: Change) -> int:
        return sum(1 for r in self.resources if r.change is change)

    @property
    def has_changes(self) -> bool:
        return bool(self.resources)

    @property
    def base_failure(self) -> str:
        """Why an environment already failing at the base fails: its error's first line."""
        return first_line((self.error or "").removeprefix("working tree: "))

    def summary(self) -> str:
        """One headline plus one line per changed resource."""
        if self.already_failing:
            return f"{self.env}: already failing at the base: {self.base_failure}"
        if self.error is not None:
            return f"{self.env}: cannot render: {self.error}"
        counts = ", ".join(f"{self.count(c)} {c.value}" for c in Change)
        headline = f"{self.env}: {counts}"
        if self.env_change is not None:
            headline += f" (environment {self.env_change.value})"
        return "\n".join(
            [headline, *(f"  {r.change.value:<8} {r.key.label()}" for r in self.resources)]
        )

    def unified(self) -> str:
        return "".join(r.unified for r in self.resources)


def first_line(text: str) -> str:
    """An error's first line: what failed, without go-jsonnet's stack trace."""
    return text.strip().splitlines()[0] if text.strip() else text


def totals(envs: Sequence[EnvDiff]) -> str:
    """One line: environments compared, resources added, changed and removed."""
    labels = {e.env for e in envs}
    counts = ", ".join(f"{sum(e.count(c) for e in envs)} {c.value}" for c in Change)
    noun = "environment" if len(labels) == 1 else "environments"
    return f"{len(labels)} {noun} compared; resources: {counts}"


def summarize(envs: Sequence[EnvDiff]) -> str:
    """The per-environment summary; environments without changes or errors are left out."""
    shown = [e.summary() for e in envs if e.has_changes or e.error is not None]
    return "\n".join(shown) + "\n" if shown else "No differences.\n"


def full_text(envs: Sequence[EnvDiff]) -> str:
    """Summary, then every environment's unified diff under a `# <env>` heading."""
    parts = [summarize(envs)]
    parts.extend(f"\n# {e.env}\n{e.unified()}" for e in envs if e.has_changes)
    return "".join(parts)


def iter_changes(envs: Sequence[EnvDiff]) -> Iterator[tuple[EnvDiff, ResourceDiff]]:
    for env in envs:
        for resource in env.resources:
            yield env, resource
