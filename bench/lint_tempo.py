"""Figures for `tk lint` (lint_paths: the in-process linter, type checker included) on Grafana
Tempo's Tanka project, whose vendored k8s-libsonnet makes one environment import ~650 files.

Needs a Tempo checkout: pass the path of grafana/tempo's `operations/jsonnet-compiled` or set
TANKA_BENCH_TEMPO to it (without one the bench says so and exits 0). Two cases, as a user runs
them from `operations/`: one environment (`jsonnet-compiled/microservices/main.jsonnet`), and
the whole tree (`jsonnet-compiled jsonnet`). Each case runs in a fresh process, so no run sees
another's warm caches.
Run: .venv/bin/python bench/lint_tempo.py [PATH] [ROUNDS] (an empty PATH: the variable's)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

CASES = {
    "one environment (microservices/main.jsonnet)": ["jsonnet-compiled/microservices/main.jsonnet"],
    "whole tree (jsonnet-compiled jsonnet)": ["jsonnet-compiled", "jsonnet"],
}
# What one round runs in its own interpreter: the CLI's call, timed without interpreter start.
_ROUND = """
import sys, time
from pathlib import Path
from tools.tanka.source.lint import lint_paths
start = time.perf_counter()
found = lint_paths(sys.argv[1:], root=Path.cwd())
print(time.perf_counter() - start, len(found))
"""


def one_round(operations: Path, paths: list[str]) -> tuple[float, int]:
    out = subprocess.run(
        [sys.executable, "-c", _ROUND, *paths],
        cwd=operations,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return float(out[0]), int(out[1])


def main() -> None:
    given = (sys.argv[1] if len(sys.argv) > 1 else "") or os.environ.get("TANKA_BENCH_TEMPO", "")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    compiled = Path(given).resolve() if given else None
    if compiled is None or not (compiled / "microservices" / "main.jsonnet").is_file():
        print(
            "skipped: no Tempo checkout. Pass the path of grafana/tempo's "
            "operations/jsonnet-compiled (or set TANKA_BENCH_TEMPO)."
        )
        return
    operations = compiled.parent
    for label, paths in CASES.items():
        started = time.perf_counter()
        results = [one_round(operations, paths) for _ in range(rounds)]
        best = min(seconds for seconds, _ in results)
        found = {count for _, count in results}
        wall = (time.perf_counter() - started) / rounds
        print(
            f"{label:<46} {best:7.2f} s best of {rounds} ({wall:.2f} s per process),"
            f" {'/'.join(map(str, sorted(found)))} diagnostics"
        )


if __name__ == "__main__":
    main()
