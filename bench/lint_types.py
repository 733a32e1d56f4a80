"""Figures for the in-process type checker (jsonnet-lint's types.Check) on a large generated file.

The file has N "components": a local function building an object, objects merged with `+`,
std calls, array elements picked by index and calls through fields; the mix gives the graph
many placeholders, indexings and `+` operations. Run: .venv/bin/python bench/lint_types.py [N]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TypeVar

from tools.tanka.source.jsonnet.common import ErrCollector, Variable, VariableKind
from tools.tanka.source.jsonnet.program import snippet_to_ast
from tools.tanka.source.jsonnet.types import check
from tools.tanka.source.jsonnet.variables import find_variables

T = TypeVar("T")


def generate(components: int) -> str:
    """One object whose locals (a flat list, so no deep nesting) define the components."""
    lines = ["local base = { name: 'x', labels: { app: 'a' }, port(p):: { port: p } };", "{"]
    for i in range(components):
        previous = max(i - 1, 0)
        lines += [
            f"  local c{i}(name, replicas=1) = base + {{",
            "    name: name, replicas: replicas,",
            "    spec+: { containers: [",
            f"      {{ image: std.format('img:%s', [name]) }}, base.port({i}),",
            "    ] },",
            f"    labels+: {{ idx: std.toString({i}) }},",
            "  },",
            f"  local o{i} = c{i}('svc{i}', replicas={i % 3})",
            f"    + {{ extra: [o{previous}.name, {i}] }},",
            f"  f{i}: [o{i}.spec.containers[0].image, o{i}.extra[1] + 1, std.length(o{i}.labels),"
            f" o{i}.port({i})],",
        ]
    return "\n".join([*lines, "}", ""])


def timed(label: str, action: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = action()
    print(f"{label:<44} {1000 * (time.perf_counter() - start):9.1f} ms")
    return result


def main() -> None:
    components = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    text = generate(components)
    size = f"{len(text.splitlines())} lines, {len(text)} bytes"
    print(f"generated file: {components} components, {size}")
    root = timed("parse + desugar + analyse", lambda: snippet_to_ast("big.jsonnet", text))
    std = Variable(name="std", variable_kind=VariableKind.VarStdlib)
    var_at = timed("find variables", lambda: find_variables(root, {"std": std, "$std": std}).var_at)
    ec = ErrCollector()
    timed(
        "type check (graph, fixpoint, checks)",
        lambda: check(
            root, {"big.jsonnet": root}, {"big.jsonnet": var_at}, lambda _c, _i: None, ec
        ),
    )
    print(f"findings: {len(ec.errs)}")


if __name__ == "__main__":
    main()
