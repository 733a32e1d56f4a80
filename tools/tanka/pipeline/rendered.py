"""A rendered environment: its processed manifests in tk's output order (what render.py makes
and the diffs compare). A value only, so that importing it loads nothing of the engine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Manifest = Mapping[str, Any]
# An environment's own values, as (field, value): what environments generated from one template
# differ in (metadata.name, spec.namespace, spec.apiServer, ...); see diff/groups.py.
Identity = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class RenderedEnv:
    """One environment's processed manifests, in tk's output order (render.py makes them)."""

    name: str  # metadata.name: the base relative to the project root, or the inline name
    inline: bool
    manifests: tuple[Manifest, ...]
    identity: Identity = ()
