"""The type checker's findings against go-jsonnet's linter goldens; skipped without a checkout.

Set GOJSONNET_CHECKOUT to an extracted go-jsonnet tree (the goldens used were those of commit
923f51b8e3ba3fd49dd8b9e859e1c0304f7cdbd4). Every `*.linter.golden` next to a `*.jsonnet` under
linter/testdata and testdata is a case; its type-checker lines (the messages this checker
makes, in order) must equal ours. File names are relative to linter/, as its test names them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.unit.tanka.jsonnet_trees import resolve
from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.children import children
from tools.tanka.source.jsonnet.errors import StaticError
from tools.tanka.source.jsonnet.program import snippet_to_ast
from tools.tanka.source.jsonnet.types import check

CHECKOUT = Path(os.environ.get("GOJSONNET_CHECKOUT", "/nonexistent"))
BASE = CHECKOUT / "linter"
CASES = sorted(BASE.glob("testdata/*.jsonnet")) + sorted(CHECKOUT.glob("testdata/*.jsonnet"))
_TYPE_FINDING = re.compile(
    r"^\S+:\S+ (Called value must be|Too few arguments|Too many arguments|Argument \S+ already"
    r" provided|function has no parameter|Missing argument:|Indexed value is|Indexed object has"
    r" no field|Index is neither|Operand is not a)"
)


class _Collector:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def static_err(self, msg: str, loc: ast.LocationRange) -> None:
        self.lines.append(f"{loc} {msg}")


class _Program:
    """The files one case reaches by imports, parsed once each (imports resolve relative to
    the importing file, as go-jsonnet's default importer does)."""

    def __init__(self, name: str, main: ast.Node) -> None:
        self.roots: dict[str, ast.Node] = {name: main}
        self._parsed: dict[str, ast.Node | None] = {}
        self._collect(main, name)

    def _path(self, current: str, imported: str) -> str:
        return os.path.normpath(os.path.join(os.path.dirname(current), imported))

    def import_ast(self, current: str, imported: str) -> ast.Node | None:
        path = self._path(current, imported)
        if path not in self._parsed:
            try:
                self._parsed[path] = snippet_to_ast(path, (BASE / path).read_text(encoding="utf-8"))
            except (OSError, StaticError):
                self._parsed[path] = None
        return self._parsed[path]

    def _collect(self, node: ast.Node, current: str) -> None:
        if isinstance(node, ast.Import):
            found = self.import_ast(current, node.file.value)
            path = self._path(current, node.file.value)
            if found is not None and path not in self.roots:
                self.roots[path] = found
                self._collect(found, path)
        elif not isinstance(node, ast.ImportStr | ast.ImportBin):
            for child in children(node):
                self._collect(child, current)


def type_findings(source: Path) -> list[str]:
    name = os.path.relpath(source, BASE).removesuffix(".jsonnet")
    try:
        main = snippet_to_ast(name, source.read_text(encoding="utf-8"))
    except StaticError:
        return []  # jsonnet-lint reports only the parse error
    program = _Program(name, main)
    ec = _Collector()
    variables = {path: resolve(root) for path, root in program.roots.items()}
    check(main, program.roots, variables, program.import_ast, ec)
    return ec.lines


@pytest.mark.skipif(not CASES, reason="set GOJSONNET_CHECKOUT to an extracted go-jsonnet tree")
def test_type_findings_match_goldens() -> None:
    different: list[str] = []
    compared = 0
    for source in CASES:
        golden = source.with_name(source.name.removesuffix(".jsonnet") + ".linter.golden")
        if "%" in source.name or not golden.exists():
            continue
        compared += 1
        want = [
            line
            for line in golden.read_text(encoding="utf-8").splitlines()
            if _TYPE_FINDING.match(line)
        ]
        got = type_findings(source)
        if got != want:
            different.append(f"{source.name}: want {want}, got {got}")
    assert compared > 0
    assert different == [], f"{len(different)} of {compared} differ"
