"""Renders of a commit's environments, kept in memory keyed by (commit id, entrypoint path, the
evaluation options' key).

A commit never changes, so its render of an environment with the same options (--name, -t,
ext/tla variables, max stack: `RenderOptions`) is reusable until evicted: the base side of every
diff in a session comes from here after the first one. Different options never share an entry.
Failures are cached as well (the same commit fails the same way). Bounded by entry count, least
recently used out first.

`to_json`/`from_json` let a caller keep a base render on disk as well (RevisionDiffer's
`persist=True`: next to the materialised tree, deleted with it), so a command that runs as a new
process each time renders only the working tree once the base has been rendered.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

from tools.tanka.pipeline.rendered import RenderedEnv

DEFAULT_MAX_ENTRIES = 512

# The environments one entrypoint renders to, or the error text it failed with.
Rendered: TypeAlias = Sequence[RenderedEnv] | str


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """What besides the tree decides an entrypoint's render: tk's --name, -t/--target, the
    ext/tla variables (name -> Jsonnet code) and --max-stack."""

    name: str = ""
    targets: tuple[str, ...] = ()
    ext_vars: tuple[tuple[str, str], ...] = ()
    tlas: tuple[tuple[str, str], ...] = ()
    max_stack: int = 0

    @classmethod
    def of(
        cls,
        *,
        name: str = "",
        targets: Sequence[str] = (),
        ext_vars: Mapping[str, str] | None = None,
        tlas: Mapping[str, str] | None = None,
        max_stack: int = 0,
    ) -> RenderOptions:
        return cls(
            name=name,
            targets=tuple(targets),
            ext_vars=tuple(sorted((ext_vars or {}).items())),
            tlas=tuple(sorted((tlas or {}).items())),
            max_stack=max_stack,
        )

    def key(self) -> str:
        """ "" for the defaults (so the keys and files of caches written before options existed
        stay valid), else a digest of all."""
        if self == DEFAULT_OPTIONS:
            return ""
        fields = [self.name, list(self.targets), self.ext_vars, self.tlas, self.max_stack]
        return hashlib.sha256(json.dumps(fields).encode()).hexdigest()[:24]


DEFAULT_OPTIONS = RenderOptions()
Key: TypeAlias = tuple[str, str, str]


K = TypeVar("K")
V = TypeVar("V")


class Bounded(Generic[K, V]):
    """A thread-safe map of at most `max_entries`, least recently used out first."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max(1, max_entries)
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


class RenderCache:
    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self._entries: Bounded[Key, Rendered] = Bounded(max_entries)
        self.max_entries = self._entries.max_entries
        self.hits = 0
        self.misses = 0

    def get(self, commit: str, entrypoint: str, options: str = "") -> Rendered | None:
        """The render of `entrypoint` at `commit` with the options whose key() is `options`."""
        found = self._entries.get((commit, entrypoint, options))
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put(self, commit: str, entrypoint: str, rendered: Rendered, options: str = "") -> None:
        self._entries.put((commit, entrypoint, options), rendered)

    def __len__(self) -> int:
        return len(self._entries)


# Bump when the engine's output for the same tree may change, so stored renders are not reused.
RENDER_FORMAT = 2


def to_json(rendered: Rendered) -> str:
    if isinstance(rendered, str):
        return json.dumps({"format": RENDER_FORMAT, "error": rendered})
    envs = [
        {"name": e.name, "inline": e.inline, "manifests": e.manifests, "identity": e.identity}
        for e in rendered
    ]
    return json.dumps({"format": RENDER_FORMAT, "envs": envs})


def from_json(text: str) -> Rendered | None:
    """The stored render, or None when the text is not one of this RENDER_FORMAT."""
    try:
        data: dict[str, Any] = json.loads(text)
        if data.get("format") != RENDER_FORMAT:
            return None
        if "error" in data:
            return str(data["error"])
        return tuple(
            RenderedEnv(
                str(e["name"]),
                bool(e["inline"]),
                tuple(e["manifests"]),
                tuple((str(f), str(v)) for f, v in e["identity"]),
            )
            for e in data["envs"]
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
