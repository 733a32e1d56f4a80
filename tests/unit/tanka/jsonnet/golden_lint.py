"""Run go-jsonnet's linter goldens against our port (used by test_lint_conformance and by hand).

Each `X.linter.golden` holds jsonnet-lint's output for `X.jsonnet`, linted under the name `X`
(relative to the directory of go-jsonnet's linter tests), imports resolved from the importing
file's directory with no library path, as go-jsonnet's linter_test.go does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tools.tanka.errors import go_quote
from tools.tanka.source.jsonnet.error_format import format_static_error
from tools.tanka.source.jsonnet.linter import ImportFailure, LintSnippet, TreeCache, lint


class DirImporter:
    """go-jsonnet's file importer without library paths, relative to the process's cwd."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def find(self, importing: str, path: str) -> str:
        found = os.path.normpath(os.path.join(os.path.dirname(importing), path))
        if (self.cwd / found).is_dir():
            raise ImportFailure(f"read {found}: is a directory")  # Go's os.ReadFile error
        if (self.cwd / found).is_file():
            return found
        raise ImportFailure(
            f"couldn't open import {go_quote(path)}: "
            "no match locally or in the Jsonnet library paths"
        )

    def read(self, found_at: str) -> str:
        return (self.cwd / found_at).read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Outcome:
    golden: Path
    expected: str
    actual: str

    @property
    def identical(self) -> bool:
        return self.expected == self.actual


def run_golden(checkout: Path, golden: Path, trees: TreeCache | None = None) -> Outcome:
    """One golden's outcome; `trees` shares parsed files with other goldens' runs."""
    linter_dir = checkout / "linter"
    source = golden.with_name(golden.name.removesuffix(".linter.golden") + ".jsonnet")
    name = os.path.relpath(source, linter_dir).removesuffix(".jsonnet")
    code = source.read_text(encoding="utf-8")
    old = os.getcwd()
    os.chdir(linter_dir)  # names and imports are relative to it, as in linter_test.go
    try:
        found = lint([LintSnippet(name, code)], DirImporter(linter_dir), trees=trees)
    finally:
        os.chdir(old)
    actual = "".join(format_static_error(e) + "\n" for e in found)
    return Outcome(golden, golden.read_text(encoding="utf-8"), actual)


def goldens(checkout: Path) -> list[Path]:
    found = sorted((checkout / "linter" / "testdata").glob("*.linter.golden"))
    found += sorted((checkout / "testdata").glob("*.linter.golden"))
    return [g for g in found if "%" not in g.name]
