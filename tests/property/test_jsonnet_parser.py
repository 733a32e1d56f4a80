"""Properties of the Jsonnet front end on arbitrary text: it never fails with anything but a
StaticError (a located, worded error), and every node it builds lies within the text."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tools.tanka.source.jsonnet import ast
from tools.tanka.source.jsonnet.errors import StaticError
from tools.tanka.source.jsonnet.linter import ImportFailure, LintSnippet, lint
from tools.tanka.source.jsonnet.parser import snippet_to_raw_ast

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Jsonnet-ish fragments, so that many examples get past the lexer and deep into the parser.
FRAGMENTS = [
    "local",
    "x",
    "y",
    "=",
    ";",
    ",",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ":",
    "::",
    "+:",
    ".",
    "$",
    "self",
    "super",
    "if",
    "then",
    "else",
    "for",
    "in",
    "function",
    "import",
    "'a'",
    '"b"',
    "|||\n  t\n|||",
    "@'v'",
    "1",
    "2.5e3",
    "+",
    "-",
    "*",
    "%",
    "==",
    "&&",
    "!",
    "assert",
    "error",
    "null",
    "true",
    "tailstrict",
    " ",
    "\n",
    "\t",
    "// c\n",
    "/* c */",
    "é",
    "::",
]
texts = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join),
)


def locations(value: object) -> list[ast.LocationRange]:
    found: list[ast.LocationRange] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.LocationRange):
            found.append(item)
        elif isinstance(item, list):
            stack.extend(item)
        elif dataclasses.is_dataclass(item):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
    return found


class NoFiles:
    def find(self, importing: str, path: str) -> str:
        raise ImportFailure(f"no file {path}")

    def read(self, found_at: str) -> str:
        raise ImportFailure(found_at)


@SETTINGS
@given(texts)
def test_lint_raises_nothing_and_every_finding_is_a_static_error(text: str) -> None:
    for finding in lint([LintSnippet("f", text)], NoFiles(), use_type_checker=False):
        assert isinstance(finding, StaticError)
        assert finding.msg


@SETTINGS
@given(texts)
def test_every_node_lies_within_the_text(text: str) -> None:
    try:
        node = snippet_to_raw_ast("f", text)
    except StaticError as err:
        loc = err.loc
        spans = [loc] if loc.is_set() else []
    else:
        spans = [loc for loc in locations(node) if loc.is_set()]
    lines = text.split("\n")
    for loc in spans:
        assert 1 <= loc.begin.line <= loc.end.line <= len(lines)
        for point in (loc.begin, loc.end):
            width = len(lines[point.line - 1].encode("utf-8", "surrogatepass"))
            assert 1 <= point.column <= width + 1
        assert (loc.begin.line, loc.begin.column) <= (loc.end.line, loc.end.column)
