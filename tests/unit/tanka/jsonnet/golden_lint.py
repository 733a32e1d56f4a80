"""Run go-jsonnet's linter goldens against our port (used by test_lint_conformance and by hand).

Each `X.linter.golden` holds jsonnet-lint's output for `X.jsonnet`, linted under the name `X`
(relative to the directory of go-jsonnet's linter tests), imports resolved from the importing
file's directory with no library path, as go-jsonnet's linter_test.go does.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from tools.tanka.source.jsonnet.error_format import format_static_error
from tools.tanka.source.jsonnet.linter import ImportFailure, Snippet, TreeCache, lint
from tools.tanka.source.jsonnet.strings import go_quote

# go-jsonnet's own findings outside type checking: every other kind comes from types.Check.
OWN_KINDS = re.compile(
    r"^(Unused variable: |Endless loop in local definition$|couldn't open import |"
    r"Unknown variable: |Can't use (self|super) outside of an object\.$|"
    r"No top-level object found\.$|\S+:\d+:\d+|read .*: is a directory$)"
)
_HEADER = re.compile(r"^(?P<file>\S+?):(?:\d+:\d+(?:-\d+)?|\(\d+:\d+\)-\(\d+:\d+\)) (?P<msg>.*)$")


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

    def blocks(self) -> list[str]:
        return split_blocks(self.expected)

    def has_type_findings(self) -> bool:
        return any(not own_kind(b) for b in self.blocks())

    def own_blocks_match(self) -> bool:
        """Our findings are exactly the golden's findings of our kinds, in order."""
        own = [b for b in self.blocks() if own_kind(b)]
        return own == split_blocks(self.actual)


def split_blocks(text: str) -> list[str]:
    """One finding per item: its header line and its source snippet."""
    blocks: list[str] = []
    for line in text.splitlines(keepends=True):
        if _HEADER.match(line.rstrip("\n")) and (not blocks or blocks[-1].endswith("\n\n\n")):
            blocks.append(line)
        elif blocks:
            blocks[-1] += line
        else:
            blocks.append(line)
    return blocks


def own_kind(block: str) -> bool:
    header = _HEADER.match(block.split("\n", 1)[0])
    if header is None:
        return True
    return bool(OWN_KINDS.match(header["msg"])) or not _looks_like_type_finding(header["msg"])


def _looks_like_type_finding(msg: str) -> bool:
    # A parse error message starts with one of these; anything else is the type checker's.
    parse = (
        "Unexpected",
        "Expected",
        "Could not lex",
        "Couldn't lex",
        "Unterminated",
        "Not a ",
        "Duplicate",
        "Did not expect",
        "Object comprehension",
        "Text block",
        "Multi-line comment",
        "Computed imports",
        "Block string",
        "Invalid slice",
        "ast.Index",
        "Cannot use +:",
        "Positional argument",
        "Unknown escape",
        "Truncated",
        "Unicode",
    )
    return not msg.startswith(parse)


def run_golden(checkout: Path, golden: Path, trees: TreeCache | None = None) -> Outcome:
    """One golden's outcome; `trees` shares parsed files with other goldens' runs."""
    linter_dir = checkout / "linter"
    source = golden.with_name(golden.name.removesuffix(".linter.golden") + ".jsonnet")
    name = os.path.relpath(source, linter_dir).removesuffix(".jsonnet")
    code = source.read_text(encoding="utf-8")
    old = os.getcwd()
    os.chdir(linter_dir)  # names and imports are relative to it, as in linter_test.go
    try:
        found = lint([Snippet(name, code)], DirImporter(linter_dir), trees=trees)
    finally:
        os.chdir(old)
    actual = "".join(format_static_error(e) + "\n" for e in found)
    return Outcome(golden, golden.read_text(encoding="utf-8"), actual)


def goldens(checkout: Path) -> list[Path]:
    found = sorted((checkout / "linter" / "testdata").glob("*.linter.golden"))
    found += sorted((checkout / "testdata").glob("*.linter.golden"))
    return [g for g in found if "%" not in g.name]
