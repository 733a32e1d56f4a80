"""A rendered environment: its processed manifests in tk's output order (what render.py makes
and the diffs compare). A value only, so that importing it loads nothing of the engine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.tanka.env.spec import Environment

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
    # The environment's spec as loaded, when rendered in this process (not kept on disk): lets a
    # check of the same render (tools.tanka.check.run) skip rendering it again.
    spec: Environment | None = field(default=None, compare=False)
