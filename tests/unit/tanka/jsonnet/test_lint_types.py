"""The linter's type findings from source text, across files: parse, variables, types.check.

Messages and locations are jsonnet-lint's (go-jsonnet's linter, commit
923f51b8e3ba3fd49dd8b9e859e1c0304f7cdbd4, whose goldens show the same shapes).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from tools.tanka.source.jsonnet.linter import ImportFailure, LintSnippet, TreeCache, lint


class MemoryImporter:
    """Files held in memory; imports resolve against the importing file's directory."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = files

    def find(self, importing: str, path: str) -> str:
        found = posixpath.normpath(posixpath.join(posixpath.dirname(importing), path))
        if found not in self.files:
            raise ImportFailure(
                f'couldn\'t open import "{path}": no match locally or in the Jsonnet library paths'
            )
        return found

    def read(self, found_at: str) -> str:
        return self.files[found_at]


def lint_lines(main: str, **others: str) -> list[str]:
    files = {
        "main.jsonnet": main,
        **{name.replace("_", "."): text for name, text in others.items()},
    }
    return [str(e) for e in lint([LintSnippet("main.jsonnet", main)], MemoryImporter(files))]


def test_library_used_wrongly() -> None:
    lib = """{
  number: 42,
  add(a, b): a + b,
  nested: { inner: { x: 1 } },
}
"""
    main = """local lib = import "lib.libsonnet";
[
  lib.number(),
  lib.add(1, 2, 3),
  lib.add(1, c=2),
  lib.add(1),
  lib.nested.inner.y,
  lib.nested.inner.x,
  lib.missing,
]
"""
    assert lint_lines(main, lib_libsonnet=lib) == [
        "main.jsonnet:3:3-15 Called value must be a function, but it is assumed to be a number",
        "main.jsonnet:4:17-18 Too many arguments, there can be at most 2, but 3 provided",
        "main.jsonnet:5:16-17 function has no parameter c",
        "main.jsonnet:6:3-13 Missing argument: b",
        'main.jsonnet:7:3-21 Indexed object has no field "y"',
        'main.jsonnet:9:3-14 Indexed object has no field "missing"',
    ]


def test_std_arity_and_fields() -> None:
    main = (
        "[std.length([1], 2), std.length(), std.lenght([1]), std.get({}, 'a', inc_hidden=true)]\n"
    )
    assert lint_lines(main) == [
        "main.jsonnet:1:18-19 Too many arguments, there can be at most 1, but 2 provided",
        "main.jsonnet:1:22-34 Missing argument: x",
        'main.jsonnet:1:36-46 Indexed object has no field "lenght"',
        # Nothing can come out of a field that is not there.
        "main.jsonnet:1:36-51 Called value must be a function, but it is assumed to be void",
    ]


def test_operators_and_indexing() -> None:
    main = """local s = "text";
[-s, !1, s.field, [1, 2].x, {a: 1}[0], (1)[0], (function() 1)(2)]
"""
    assert lint_lines(main) == [
        "main.jsonnet:2:2-4 Operand is not a number, it is assumed to be a string",
        "main.jsonnet:2:6-8 Operand is not a boolean, it is assumed to be a number",
        "main.jsonnet:2:10-17 Indexed value is assumed to be a string, but index is not a number",
        "main.jsonnet:2:19-27 Indexed value is assumed to be an array, but index is not a number",
        "main.jsonnet:2:29-38 Indexed value is assumed to be an object, but index is not a string",
        "main.jsonnet:2:40-46 Indexed value is neither an array nor an object nor a string",
        "main.jsonnet:2:48-65 Too many arguments: got 1, but expected at most 0",
    ]


def test_recursion_across_files_terminates() -> None:
    a = 'local b = import "b.libsonnet"; { next: b, value: 1 }\n'
    b = 'local a = import "a.libsonnet"; { next: a, value: "s" }\n'
    main = 'local a = import "a.libsonnet"; [a.next.next.next.value, a.next.next.nope]\n'
    assert lint_lines(main, a_libsonnet=a, b_libsonnet=b) == [
        'main.jsonnet:1:58-74 Indexed object has no field "nope"',
    ]


def test_linted_file_imported_back() -> None:
    # The imported copy of main.jsonnet is a second tree, unknown to the check: anything.
    main = 'local lib = import "lib.libsonnet"; [lib.x.y, lib.z]\n'
    lib = '{ x: import "main.jsonnet" }\n'
    assert lint_lines(main, lib_libsonnet=lib) == [
        'main.jsonnet:1:47-52 Indexed object has no field "z"'
    ]


def test_self_recursive_definitions_terminate() -> None:
    main = """local f(n) = if n == 0 then [] else [n] + f(n - 1);
local o = { me: o, x: 1 } + { y: o.me.me.x };
[f(3)[0], o.me.me.me.z, o.y]
"""
    assert lint_lines(main) == ['main.jsonnet:3:11-23 Indexed object has no field "z"']


def test_a_file_importing_itself_gets_a_separate_tree_shared_or_not() -> None:
    # jsonnet-lint parses a linted file apart from its import of itself, so `m.a.x` and `m.zz`
    # (through the import) are not checked against main's own object; the calls are. A
    # TreeCache shared across the calls (as `tk lint` shares one) must not change that.
    files = {
        "main.jsonnet": "local m = import 'main.jsonnet'; local lib = import 'lib.libsonnet';"
        " { a: 1, b: m.a.x, c: m.zz, d: lib.me.q(), e: m.a() }",
        "lib.libsonnet": "{ me: import 'lib.libsonnet', q: 1, r: (import 'main.jsonnet').a() }",
    }
    called = "Called value must be a function, but it is assumed to be a number"
    expected = {
        "main.jsonnet": [f"main.jsonnet:1:100-110 {called}"],
        "lib.libsonnet": [f"lib.libsonnet:1:40-67 {called}"],
    }
    shared = TreeCache()
    for trees in (None, shared, shared):  # the second shared round reuses every tree
        for name, code in files.items():
            found = lint([LintSnippet(name, code)], MemoryImporter(files), trees=trees)
            assert [str(e) for e in found] == expected[name]
