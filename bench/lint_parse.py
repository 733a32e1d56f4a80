"""Figures for the in-process Jsonnet front end and linter on a generated 5k-line libsonnet.

The file has the shape of generated Kubernetes libraries (k8s-libsonnet): nested objects of
hidden `withX(x)::` setters using `self`, `super`-free mixins, locals, comprehensions, string
formatting and imports of std only.
Run: .venv/bin/python bench/lint_parse.py [KINDS] [ROUNDS]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TypeVar

from tools.tanka.source.jsonnet.analyzer import analyze
from tools.tanka.source.jsonnet.desugarer import desugar
from tools.tanka.source.jsonnet.lexer import lex
from tools.tanka.source.jsonnet.linter import ImportFailure, LintSnippet, lint
from tools.tanka.source.jsonnet.parser import deep_recursion, snippet_to_raw_ast

T = TypeVar("T")


def kind(i: int) -> str:
    setters = "".join(
        f"      with{f.capitalize()}({f}):: {{ spec+: {{ {f}: {f} }} }},\n"
        f"      with{f.capitalize()}Mixin({f}):: {{ spec+: {{ {f}+: {f} }} }},\n"
        for f in ("replicas", "paused", "minReadySeconds", "revisionHistoryLimit")
    )
    return (
        f"  kind{i}: {{\n"
        f"    local apiVersion = {{ apiVersion: 'apps/v{i % 3}' }},\n"
        f"    new(name):: apiVersion + {{ kind: 'Kind{i}' }} + self.metadata.withName(name),\n"
        "    metadata: {\n"
        "      withName(name):: { metadata+: { name: name } },\n"
        "      withLabels(labels):: { metadata+: { labels: labels } },\n"
        "      withLabelsMixin(labels):: { metadata+: { labels+: labels } },\n"
        "    },\n"
        "    spec: {\n"
        f"{setters}"
        "      withPorts(ports):: {\n"
        "        spec+: { ports: if std.isArray(ports) then ports else [ports] },\n"
        "      },\n"
        "      named:: { [k]: std.format('%s-%d', [k, 1]) for k in ['a', 'b'] },\n"
        "      list:: [x * 2 for x in std.range(0, 3) if x % 2 == 0],\n"
        "    },\n"
        "  },\n"
    )


def source(kinds: int) -> str:
    return (
        "local d = import 'doc-util/main.libsonnet';\n{\n"
        + "".join(map(kind, range(kinds)))
        + "  '#': d,\n}\n"
    )


class _OnlyDocUtil:
    def find(self, importing: str, path: str) -> str:
        if path != "doc-util/main.libsonnet":
            raise ImportFailure(path)
        return path

    def read(self, found_at: str) -> str:
        return "{ fn(help, args=[]):: {}, obj(help, fields={}):: {} }\n"


def timed(label: str, rounds: int, action: Callable[[], T]) -> T:
    best = float("inf")
    result = action()
    for _ in range(rounds):
        start = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<44} {1000 * best:9.1f} ms (best of {rounds})")
    return result


def main() -> None:
    kinds = int(sys.argv[1]) if len(sys.argv) > 1 else 210
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    text = source(kinds)
    print(f"{text.count(chr(10))} lines, {len(text)} bytes")
    with deep_recursion():
        tokens = timed("lex", rounds, lambda: lex("big.libsonnet", text))
        print(f"{len(tokens)} tokens")
        timed("lex + parse", rounds, lambda: snippet_to_raw_ast("big.libsonnet", text))

        def front_end() -> None:
            node = desugar(snippet_to_raw_ast("big.libsonnet", text))
            analyze(node)

        timed("lex + parse + desugar + analyse", rounds, front_end)
    findings = timed(
        "lint (all of the above + imports, unused, loops)",
        rounds,
        lambda: lint([LintSnippet("big.libsonnet", text)], _OnlyDocUtil(), use_type_checker=False),
    )
    print(f"{len(findings)} findings")


if __name__ == "__main__":
    main()
