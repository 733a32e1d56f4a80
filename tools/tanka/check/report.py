"""The result of checking some environments: counts, findings, texts for people and JSON.

`summary()` is the one line a proposal shows after its diff summary; `text()` adds a line per
finding; `to_json()` is `tanka-bot tk check --output json`. `exit_code` is the CLI's: 0 clean
(warnings and unchecked kinds allowed), 1 a schema error, a deny or an environment that does not
render. (A broken policy or setting never produces a report: it raises CheckSetupError, exit 2.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tools.tanka.check.findings import Checker, Finding, Level

_ORDER = {Level.ERROR: 0, Level.WARNING: 1, Level.UNCHECKED: 2}


@dataclass(slots=True)
class EnvResult:
    env: str  # directory relative to the repository, `dir [name]` for inline environments
    objects: int = 0
    invalid: int = 0  # objects with at least one schema error or deny
    error: str | None = None  # why the environment could not be rendered


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


@dataclass(slots=True)
class CheckReport:
    kubernetes_version: str
    policies: list[str] = field(default_factory=list)  # policy files, relative to the repo
    envs: list[EnvResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def objects(self) -> int:
        return sum(e.objects for e in self.envs)

    def count(self, level: Level, source: Checker | None = None) -> int:
        return sum(
            1 for f in self.findings if f.level == level and (source is None or f.source == source)
        )

    @property
    def render_errors(self) -> list[EnvResult]:
        return [e for e in self.envs if e.error is not None]

    @property
    def failed(self) -> bool:
        """A schema error, a deny, or an environment that could not be checked."""
        return bool(self.count(Level.ERROR) or self.render_errors)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def sorted_findings(self) -> list[Finding]:
        return sorted(
            self.findings, key=lambda f: (f.env, _ORDER[f.level], f.obj.label(), f.path, f.rule)
        )

    def summary(self) -> str:
        """e.g. `checks: 112 objects valid, 2 unchecked kinds, 0 schema errors, 0 denied, 1
        warning`."""
        valid = self.objects - sum(e.invalid for e in self.envs)
        parts = [
            f"{valid} of {self.objects} objects valid"
            if valid != self.objects
            else _plural(self.objects, "object") + " valid",
            _plural(self.count(Level.UNCHECKED), "unchecked kind"),
            _plural(self.count(Level.ERROR, Checker.SCHEMA), "schema error"),
            f"{self.count(Level.ERROR, Checker.POLICY)} denied",
            _plural(self.count(Level.WARNING), "warning"),
        ]
        if self.render_errors:
            parts.append(_plural(len(self.render_errors), "environment") + " failed to render")
        return "checks: " + ", ".join(parts)

    def text(self, limit: int | None = None) -> str:
        """The summary, then one line per render error and per finding (errors first); with
        `limit`, at most that many lines after the summary and a count of the rest (Slack)."""
        lines = [f"error: {e.env}: {e.error}" for e in self.render_errors]
        lines += [f.line() for f in self.sorted_findings()]
        if limit is not None and len(lines) > limit:
            rest = len(lines) - limit
            lines = [*lines[:limit], f"... and {rest} more (run `tanka-bot tk check` for all)"]
        return "\n".join([self.summary(), *lines]) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": not self.failed,
            "summary": self.summary(),
            "kubernetesVersion": self.kubernetes_version,
            "policies": list(self.policies),
            "counts": {
                "objects": self.objects,
                "schemaErrors": self.count(Level.ERROR, Checker.SCHEMA),
                "denied": self.count(Level.ERROR, Checker.POLICY),
                "warnings": self.count(Level.WARNING),
                "uncheckedKinds": self.count(Level.UNCHECKED),
            },
            "environments": [
                {"env": e.env, "objects": e.objects, "invalid": e.invalid, "error": e.error}
                for e in self.envs
            ],
            "findings": [f.to_json() for f in self.sorted_findings()],
        }
