"""Unused variables as go-jsonnet's linter reports them (tools/tanka/source/jsonnet/linter.py).

Locations follow go-jsonnet's rule - from the variable's name to the end of its bound expression,
end column exclusive - as its linter goldens show (google/go-jsonnet at
923f51b8e3ba3fd49dd8b9e859e1c0304f7cdbd4: `testdata/optional_args2.linter.golden` reports
`local x = 1;` at `1:7-12`, `testdata/object_various_field_types.linter.golden` an object local
after a tab at `11:8-26`, `testdata/overriding_stdlib_desugared.linter.golden` a `local std` at
`2:7-15`, `linter/testdata/multiple_errors.linter.golden` `Unused variable: foo` at `1:7-19`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.tanka.source.jsonnet.linter import ImportFailure, LintSnippet, lint_findings
from tools.tanka.source.lint import lint_paths


class _NoImports:
    def find(self, importing: str, path: str) -> str:
        raise ImportFailure(path)

    def read(self, found_at: str) -> str:
        raise ImportFailure(found_at)


def found(text: str) -> list[str]:
    findings = lint_findings([LintSnippet("t", text)], _NoImports(), use_type_checker=False)
    return [str(f.error).removeprefix("t:") for f in findings if f.kind == "unused"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("local x = 1;\n{}", ["1:7-12 Unused variable: x"]),
        ("local foo = {}[42];\n[]", ["1:7-19 Unused variable: foo"]),
        ("{\n\tlocal hidden = true,\n\ta: 1,\n}", ["2:8-21 Unused variable: hidden"]),
        ("// shadowing std\nlocal std = {};\n[x for x in []]", ["2:7-15 Unused variable: std"]),
        ("local a = 1, f = function(a) 42, z = a; f(a)", ["1:34-39 Unused variable: z"]),
        # Shadowed: the outer x is never referred to; named arguments are not references.
        (
            "local x = 1;\nlocal f(x=2, y=x) = y;\nlocal x = 3;\nf(y=x)",
            ["1:7-12 Unused variable: x"],
        ),
        # A multi-line bound expression.
        ("local big = {\n  a: 1,\n};\n0", ["(1:7)-(3:2) Unused variable: big"]),
    ],
)
def test_unused_locals_with_go_jsonnet_locations(source: str, expected: list[str]) -> None:
    assert found(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "{ num: 1, obj: $.num }",  # $ is never reported
        "function(unused) 42",  # nor parameters
        "[1 for unused in [1, 2]]",  # nor comprehension variables
        "{ [k]: 1 for k in ['a'] }",
        "local a = b, b = 1; a",  # bindings are mutually recursive
        "local f(n) = if n == 0 then 0 else f(n - 1); 1",  # its own body's reference counts
        # Used only in an object assertion, and by another local.
        "{ local all = [1], local known = [1], assert std.length(all) == std.length(known) }",
        "{ local v = 1, f(x): x + v }",  # seen from a method's body
        "local t = |||\n  text\n|||; t",
        "local unused = 1; nope",  # an unknown variable: go-jsonnet stops there
        "local unused = ",  # does not parse: the syntax check reports it
        "{ local x = 5 for y in [1] }",  # not a valid object comprehension
    ],
)
def test_nothing_reported(source: str) -> None:
    assert found(source) == []


def test_lint_reports_them_with_go_jsonnet_message_and_span(tmp_path: Path) -> None:
    (tmp_path / "jsonnetfile.json").write_text("{}")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.libsonnet").write_text("local helper = 1;\nlocal used = 2;\n{ v: used }\n")
    diagnostics = lint_paths([lib], root=tmp_path)
    unused = [d for d in diagnostics if d.check == "unused"]
    assert [(d.path, d.span, d.message) for d in unused] == [
        ("lib/a.libsonnet", "1:7-17", "Unused variable: helper")
    ]
    assert str(unused[0]) == "lib/a.libsonnet:1:7: error: Unused variable: helper"
