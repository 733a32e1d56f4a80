"""tk's chartfile.yaml (`tk tool charts`): which Helm charts a project vendors, and where.

A chartfile lists `requires` entries (`chart: repo/name`, `version`, optional `directory`); tk
vendors each into `<chartfile dir>/<directory: default charts>/<entry's directory or name>`, and
`helmTemplate` then reads the chart from there by path. Vendoring downloads from the listed
repositories, so it is not done here: this module reads the chartfile and compares it with what
is on disk, offline, for the error of a missing chart and for `tanka-bot tk tool charts status`.

Every read stays inside the project (`confine`: the evaluation's directory, else the project root
of the chartfile, else its directory): a chartfile.yaml, Chart.yaml or charts directory that is a
symlink out of it is refused by name rather than read (a YAML error would quote its content).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tools.tanka.confined import ConfinedPaths, Outside
from tools.tanka.errors import TankaError
from tools.tanka.project import find_root

FILENAME = "chartfile.yaml"
DEFAULT_DIR = "charts"
_KEYS = {"version", "repositories", "requires", "directory"}
_REQUIREMENT_KEYS = {"chart", "version", "directory"}
VENDOR_COMMAND = "tk tool charts vendor"
VENDOR_HINT = f"run `{VENDOR_COMMAND}` next to it to download it"


class ChartfileError(TankaError):
    """A chartfile.yaml that tk would refuse."""


@dataclass(frozen=True)
class Requirement:
    chart: str  # repo/name
    version: str
    directory: str  # below the charts directory: the entry's `directory`, else the name

    def __str__(self) -> str:
        return f"{self.chart}@{self.version}"


@dataclass(frozen=True)
class Chartfile:
    path: Path
    directory: str
    requires: tuple[Requirement, ...]
    confine: str = "/"  # the directory every read stays in

    @property
    def charts_dir(self) -> Path:
        return self.path.parent / self.directory

    def destination(self, req: Requirement) -> Path:
        return self.charts_dir / req.directory


@dataclass(frozen=True)
class Vendored:
    """One requirement against the disk: `found` is the vendored Chart.yaml's version, "" when
    the directory or its Chart.yaml is missing."""

    requirement: Requirement
    path: Path
    found: str

    @property
    def ok(self) -> bool:
        return self.found == self.requirement.version


def load(path: Path, confine: str | None = None) -> Chartfile:
    """Parse a chartfile.yaml as tk does (unknown keys refused, `chart` required, repo/name
    charts, one output directory per chart); its reads stay inside `confine` (default: the
    project root of the chartfile, else its directory)."""
    where = str(path)
    confine = confine or _project_of(path)
    try:
        data = yaml.safe_load(inside(path, confine).read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ChartfileError(f"{where}: cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ChartfileError(f"{where}: must be a mapping with `requires:`")
    _no_unknown(where, "", data, _KEYS)
    entries = data.get("requires") or []
    if not isinstance(entries, list):
        raise ChartfileError(f"{where}: `requires` must be a list of {{chart, version}}")
    requires: list[Requirement] = []
    problems: list[str] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not entry.get("chart"):
            raise ChartfileError(f"{where}: requirements[{i}]: 'chart' must be set")
        _no_unknown(where, f"requires[{i}].", entry, _REQUIREMENT_KEYS)
        chart = str(entry["chart"])
        if "/" not in chart:
            problems.append(f"Chart name {chart!r} is not valid. Expecting a repo/name format.")
            continue
        directory = str(entry.get("directory") or chart.split("/", 1)[1])
        requires.append(Requirement(chart, str(entry.get("version") or ""), directory))
    seen: dict[str, Requirement] = {}
    for req in requires:
        if req.directory in seen:
            problems.append(
                f"output directory {req.directory!r} is used twice, by charts "
                f'"{seen[req.directory]}" and "{req}"'
            )
        seen[req.directory] = req
    if problems:
        raise ChartfileError(f"{where}: validation errors:\n - " + "\n - ".join(problems))
    return Chartfile(path, str(data.get("directory") or DEFAULT_DIR), tuple(requires), confine)


def _project_of(path: Path) -> str:
    try:
        return str(find_root(path.parent))
    except TankaError:
        return str(path.parent)


def inside(path: Path, confine: str) -> Path:
    """The real path of `path`, resolved one link at a time without leaving `confine`;
    ChartfileError naming it when it leads out."""
    found = ConfinedPaths(confine).walk(os.path.normpath(os.path.abspath(path)))
    if isinstance(found, Outside):
        raise ChartfileError(
            f"{path}: leads outside the project directory {confine} (to {found.target}); "
            "refused: replace the symlink with the file or directory itself"
        )
    return Path(found.real)


def _no_unknown(where: str, prefix: str, data: dict[str, Any], known: set[str]) -> None:
    unknown = sorted(set(map(str, data)) - known)
    if unknown:
        raise ChartfileError(
            f"{where}: unknown field {prefix}{unknown[0]!r} (known: {', '.join(sorted(known))})"
        )


def vendored(chartfile: Chartfile) -> list[Vendored]:
    """Each requirement with the version vendored for it (from its Chart.yaml)."""
    return [
        Vendored(req, path, _chart_version(path, chartfile.confine))
        for req in chartfile.requires
        for path in [chartfile.destination(req)]
    ]


def unrequired(chartfile: Chartfile) -> list[str]:
    """Entries of the charts directory no requirement vendors into (`vendor --prune` removes
    them)."""
    wanted = {req.directory for req in chartfile.requires}
    charts_dir = inside(chartfile.charts_dir, chartfile.confine)
    if not charts_dir.is_dir():
        return []
    return sorted(p.name for p in charts_dir.iterdir() if p.name not in wanted)


def _chart_version(chart: Path, confine: str) -> str:
    try:
        meta = yaml.safe_load(inside(chart / "Chart.yaml", confine).read_text())
    except (OSError, yaml.YAMLError):
        return ""
    return str(meta.get("version") or "") if isinstance(meta, dict) else ""


def missing_chart_hint(chart: str, confine: str) -> str:
    """For a chart path that does not exist: which chartfile.yaml (between the chart and
    `confine`) requires it there, and how to get it; "" when none does."""
    target = os.path.normpath(chart)
    paths = ConfinedPaths(confine)
    here = os.path.dirname(target)
    while paths.contains(here):
        candidate = Path(here) / FILENAME
        found = paths.walk(str(candidate))
        if not isinstance(found, Outside) and os.path.isfile(found.real):
            try:
                chartfile = load(candidate, confine)
            except ChartfileError as exc:
                return f" ({exc})"
            for req in chartfile.requires:
                if os.path.normpath(chartfile.destination(req)) == target:
                    return f" ({candidate} requires {req} there: {VENDOR_HINT})"
        here = os.path.dirname(here)
    return ""
