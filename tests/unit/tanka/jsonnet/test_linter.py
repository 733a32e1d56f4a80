"""The in-process linter: go-jsonnet's findings, their order and their printed form.

Expected texts marked "golden" are copied from google/go-jsonnet at
923f51b8e3ba3fd49dd8b9e859e1c0304f7cdbd4 (the named `*.linter.golden` file, same input).
"""

from __future__ import annotations

import pytest

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.common import ErrCollector, Variable
from tools.tanka.source.jsonnet.error_format import format_static_error
from tools.tanka.source.jsonnet.linter import ImportAst, ImportFailure, LintSnippet, lint
from tools.tanka.source.jsonnet.parser import MAX_NESTING


class Files:
    """Imports from a dict, resolved next to the importing file (no library path)."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.reads: list[str] = []

    def find(self, importing: str, path: str) -> str:
        directory = importing.rpartition("/")[0]
        found = f"{directory}/{path}" if directory else path
        if found not in self.files:
            raise ImportFailure(f'couldn\'t open import "{path}": no match')
        return found

    def read(self, found_at: str) -> str:
        self.reads.append(found_at)
        return self.files[found_at]


def run(code: str, files: dict[str, str] | None = None, name: str = "t") -> str:
    found = lint([LintSnippet(name, code)], Files(files or {}), use_type_checker=False)
    return "".join(format_static_error(e) + "\n" for e in found)


def headers(code: str, files: dict[str, str] | None = None) -> list[str]:
    found = lint([LintSnippet("t", code)], Files(files or {}), use_type_checker=False)
    return [str(e) for e in found]


def test_endless_loop_golden() -> None:
    # linter/testdata/endless_loop.linter.golden
    expected = "testdata/endless_loop:1:11-12 Endless loop in local definition\n\n"
    expected += "local x = x; 42\n\n\n"
    assert run("local x = x; 42\n", name="testdata/endless_loop") == expected


def test_unused_variable_golden_with_multi_line_snippet() -> None:
    # testdata/optional_args2.linter.golden reports `local x = 1;` so; a multi-line bind shows
    # every line it covers.
    assert run("local x = 1;\n{}\n") == "t:1:7-12 Unused variable: x\n\nlocal x = 1;\n\n\n"
    text = run("local big = {\n  a: 1,\n};\n0\n")
    assert text == "t:(1:7)-(3:2) Unused variable: big\n\nlocal big = {\n  a: 1,\n};\n\n\n"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("function(unused) 42", []),  # parameters are not reported
        ("{ num: 1, obj: $.num }", []),  # nor `$`
        ("local a = b, b = 1; a", []),  # binds see each other
        ("local std = {}; 1", ["t:1:7-15 Unused variable: std"]),
        ("{ local h = 1, a: 2 }", ["t:1:9-14 Unused variable: h"]),
        ("local a = 1, f(a) = a; f(2)", ["t:1:7-12 Unused variable: a"]),
        ("local a = b, b = a; a", ["t:1:11-12 Endless loop in local definition"]),
        ("local a = [a]; a", []),  # inside an array: evaluated lazily, not a loop
        ("local f() = f(); f()", []),  # a function refers to itself lazily
        # A self-reference counts as a use, so `a` is a loop but not unused.
        ("local a = a + 1, b = 2; b", ["t:1:11-12 Endless loop in local definition"]),
        ("local x = 1; local y = x; 1", ["t:1:20-25 Unused variable: y"]),
    ],
)
def test_findings(code: str, expected: list[str]) -> None:
    assert headers(code) == expected


def test_parse_and_static_errors_are_the_only_finding() -> None:
    assert headers("local x = ; 1") == ['t:1:11-12 Unexpected: ";" while parsing terminal']
    assert headers("local x = 1; y") == ["t:1:14-15 Unknown variable: y"]
    text = run("{ a: 1,\n  b: }")
    assert text == 't:2:6-7 Unexpected: "}" while parsing terminal\n\n  b: }\n\n\n'


def test_import_errors_come_first_and_walk_into_imported_files() -> None:
    files = {
        "lib/a.libsonnet": "local unused = 1; import 'missing.libsonnet'",
        "lib/s.txt": "text",
    }
    code = (
        "local x = 1;\n"
        "[import 'lib/a.libsonnet', importstr 'lib/s.txt', importbin 'nope.bin',\n"
        " if false then import 'dead.libsonnet']"
    )
    assert headers(code, files) == [
        'lib/a.libsonnet:1:19-45 couldn\'t open import "missing.libsonnet": no match',
        't:2:51-71 couldn\'t open import "nope.bin": no match',
        't:3:16-39 couldn\'t open import "dead.libsonnet": no match',
        "t:1:7-12 Unused variable: x",  # imported files' own unused variables are not reported
    ]


def test_an_imported_file_that_does_not_parse_is_reported_once() -> None:
    files = {"bad.libsonnet": "{"}
    found = headers("[import 'bad.libsonnet', import 'bad.libsonnet']", files)
    assert found == [
        "t:1:2-24 bad.libsonnet:1:2 Unexpected: end of file while parsing field definition"
    ]


def test_each_file_is_read_once() -> None:
    files = Files({"a.libsonnet": "import 'b.libsonnet'", "b.libsonnet": "1"})
    code = "[import 'a.libsonnet', import 'b.libsonnet', import 'a.libsonnet']"
    assert lint([LintSnippet("t", code)], files, use_type_checker=False) == []
    assert files.reads == ["a.libsonnet", "b.libsonnet"]


def test_the_type_checker_runs_between_unused_variables_and_loops() -> None:
    seen: list[tuple[list[str], list[str], ast.Node | None]] = []

    def checker(
        node: ast.Node,
        roots: dict[str, ast.Node],
        vars: dict[str, dict[ast.Node, Variable]],
        import_ast: ImportAst,
        ec: ErrCollector,
        /,
    ) -> None:
        seen.append((sorted(roots), sorted(vars), import_ast("t", "lib.libsonnet")))
        ec.static_err("from the type checker", node.loc_range)

    code = "local u = 1; local l = l + 1; local v = 2; import 'lib.libsonnet'"
    found = lint([LintSnippet("t", code)], Files({"lib.libsonnet": "{}"}), type_checker=checker)
    assert [e.msg for e in found] == [
        "Unused variable: u",
        "Unused variable: v",
        "from the type checker",
        "Endless loop in local definition",
    ]
    assert seen[0][:2] == (["lib.libsonnet", "t"], ["lib.libsonnet", "t"])
    assert isinstance(seen[0][2], ast.DesugaredObject)


def test_var_at_maps_every_use_to_its_binding() -> None:
    captured: dict[str, dict[ast.Node, Variable]] = {}

    def checker(
        node: ast.Node,
        roots: dict[str, ast.Node],
        vars: dict[str, dict[ast.Node, Variable]],
        import_ast: ImportAst,
        ec: ErrCollector,
        /,
    ) -> None:
        captured.update(vars)

    lint([LintSnippet("t", "local a = 1; [a, a, std.x]")], Files({}), type_checker=checker)
    uses = sorted((v.name, str(node.loc_range)) for node, v in captured["t"].items())
    assert uses == [("a", "t:1:15-16"), ("a", "t:1:18-19"), ("std", "t:1:21-24")]


def test_deep_but_allowed_trees_lint_without_exhausting_the_stack() -> None:
    chain = " + ".join(["x"] * (MAX_NESTING - 10))
    assert headers(f"local x = 1; {chain}") == []
    depth = MAX_NESTING // 2
    assert headers("local y = 1; " + "[" * depth + "y" + "]" * depth) == []
