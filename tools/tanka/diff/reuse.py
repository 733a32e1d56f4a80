"""Renders reused by their read sets: an environment that reads the same files as when it was
rendered renders the same, without an evaluation.

A `Recorded` render keeps, beside the render, what decided it apart from the options (which key
it like every render): its location (the project root and base tk finds for the entrypoint,
relative to the repository) and every file its evaluations looked up (evaluation/reads.py),
relative to the repository, with what each lookup found - a digest of the content, or that the
candidate was missing (an import search path tried in vain) or led out of the confinement.
spec.json is added (the loader reads it outside any evaluation). `holds` asks the same questions
of another tree - the working tree, or the next base commit's - and the render stands for that
tree only when every answer is the same.

Never recorded, so never reused: a render that failed, one whose evaluations called a native
reading files of its own (helmTemplate, kustomizeBuild: a chart directory, a program's output),
one whose location leaves the repository, and one that names its own tree's directory (through
std.thisFile, say) - it would name the other tree's there.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.tanka.diff import render_cache
from tools.tanka.diff.render_cache import Rendered
from tools.tanka.errors import TankaError
from tools.tanka.evaluation.importer import Importer
from tools.tanka.evaluation.reads import ReadSet
from tools.tanka.project import SPEC_FILE, resolve_env_paths

FORMAT = 1


@dataclass(frozen=True, slots=True)
class Recorded:
    location: tuple[str, str]  # (root, base), relative to the repository
    files: dict[str, str]  # path relative to the repository -> Importer.outcome


Start = tuple[tuple[str, str], str]  # a render's location and its spec.json, taken before it


def start(root: Path, rel: str) -> Start | None:
    """What decides the render of `rel` in `root` outside its evaluations, taken before it
    starts: its location and what spec.json holds (the loader reads it, no evaluation).
    Taken before, a spec.json written meanwhile makes the record disagree with the tree, so
    the render is not reused; taken after, a stale render could pass for the new one."""
    location = locate(root, rel)
    if location is None:
        return None
    spec = str(root / location[1] / SPEC_FILE)
    return location, Importer((), confine=root).outcome(spec)


def record_of(
    reads: ReadSet, root: Path, rel: str, rendered: Rendered, started: Start | None
) -> Recorded | None:
    """The read set of `rendered`, the render of `rel` in the tree `root` that began at
    `started`; None when it may depend on more than its files (module docstring)."""
    if started is None or reads.opaque or isinstance(rendered, str):
        return None
    location, spec = started
    if locate(root, rel) != location:  # moved while it rendered
        return None
    text = render_cache.to_json(rendered)
    if any(name in text for name in {str(root), os.path.realpath(root)}):
        return None
    files = {Path(location[1], SPEC_FILE).as_posix(): spec}
    for path, found in reads.files.items():
        inside = os.path.relpath(path, root)
        if inside.startswith(".."):
            return None
        files[Path(inside).as_posix()] = found
    return Recorded(location, files)


def holds(recorded: Recorded, root: Path, rel: str) -> bool:
    """Whether the render `recorded` describes is also the render of `rel` in the tree `root`:
    same location, and every recorded lookup finds the same there."""
    if locate(root, rel) != recorded.location:
        return False
    importer = Importer((), confine=root, one_run=True)
    return all(
        importer.outcome(os.path.join(root, path)) == found
        for path, found in recorded.files.items()
    )


def locate(root: Path, rel: str) -> tuple[str, str] | None:
    """The project root and environment base tk finds for the entrypoint `rel` in `root`."""
    try:
        paths = resolve_env_paths(root / rel)
    except (TankaError, OSError):
        return None
    found = (os.path.relpath(paths.root, root), os.path.relpath(paths.base, root))
    return None if any(p.startswith("..") for p in found) else found


def to_json(recorded: Recorded, rendered: Rendered | None = None) -> str:
    data: dict[str, Any] = {"format": FORMAT, "location": list(recorded.location),
                            "files": recorded.files}  # fmt: skip
    if rendered is not None:
        data["render"] = render_cache.to_json(rendered)
    return json.dumps(data)


def from_json(text: str) -> tuple[Recorded, Rendered | None] | None:
    """The record (and the render stored with it, if any); None for another FORMAT or junk."""
    try:
        data: dict[str, Any] = json.loads(text)
        if data.get("format") != FORMAT:
            return None
        root, base = data["location"]
        files = {str(p): str(f) for p, f in data["files"].items()}
        rendered = render_cache.from_json(data["render"]) if "render" in data else None
        if "render" in data and rendered is None:
            return None
        return Recorded((str(root), str(base)), files), rendered
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
