"""Render time of Tempo's `microservices` environment: our engine vs a bare gojsonnet evaluation.

* bare: `_gojsonnet.evaluate_file` of main.jsonnet in this process with tk's import paths and no
  import callback - the fastest a Python caller can evaluate the file, output left as JSON text;
* ours: `render.show` - evaluation in a worker process (confined import callback, natives),
  manifest extraction and processing, YAML byte-identical to tk - with the worker started
  beforehand, so process start-up is excluded. Also split into its stages.
Target (brief): ours within 1.3x of bare. The two are timed alternately, RUNS times each after a
warm-up, so load from other processes hits both alike; minimum and median are printed.

The checkout is not part of this repository: fetch grafana/tempo and pass the directory
`operations/jsonnet-compiled` (its vendor/ links into ../jsonnet, so keep all of `operations/`):
    .venv/bin/python bench/tanka_render.py /tmp/tempo/operations/jsonnet-compiled [RUNS]
or set TANKA_BENCH_TEMPO to that directory. Without it the bench says so and exits 0.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import _gojsonnet

from tools.tanka.environments import EvalSettings, load_environment
from tools.tanka.render import process_loaded, show
from tools.tanka.yaml_emit import show_output

ENV = "microservices"


def seconds(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def alternate(actions: dict[str, Callable[[], object]], runs: int) -> dict[str, list[float]]:
    """Each action `runs` times, round-robin, after one warm-up run each."""
    for action in actions.values():
        action()  # warm-up: worker start, imports, file caches
    times: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            times[name].append(seconds(action))
    return times


def bare(root: Path) -> str:
    base = root / ENV
    # gojsonnet searches jpathdir last to first, as tk's list is ordered lowest precedence first.
    jpath = [root / "vendor", base / "vendor", root / "lib", base]
    text: str = _gojsonnet.evaluate_file(
        str(base / "main.jsonnet"), jpathdir=[str(p) for p in jpath]
    )
    return text


def main() -> None:
    given = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TANKA_BENCH_TEMPO", "")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    root = Path(given) if given else None
    if root is None or not (root / ENV / "main.jsonnet").is_file():
        print(
            "skipped: no Tempo checkout. Pass the path of grafana/tempo's "
            "operations/jsonnet-compiled (or set TANKA_BENCH_TEMPO)."
        )
        return
    env = root / ENV
    # vendor/microservices links to ../../jsonnet: imports stay inside `operations/`.
    settings = EvalSettings(confine=root.parent)
    out = show(env, settings=settings)
    print(f"tempo {ENV}: {out.count(chr(10) + '---' + chr(10)) + 1} manifests, {len(out)} bytes")
    loaded = load_environment(env, settings=settings)
    manifests = process_loaded(loaded)
    times = alternate(
        {
            "bare gojsonnet evaluate_file (in process)": lambda: bare(root),
            "ours: show (evaluate + process + YAML)": lambda: show(env, settings=settings),
            "  evaluate in a worker (load_environment)": lambda: load_environment(
                env, settings=settings
            ),
            "  extract + process (already evaluated)": lambda: process_loaded(loaded),
            "  YAML (show_output)": lambda: show_output(manifests),
        },
        runs,
    )
    print(f"{'':<46} {'min':>9} {'median':>9}")
    for name, values in times.items():
        low, mid = 1000 * min(values), 1000 * statistics.median(values)
        print(f"{name:<46} {low:7.1f}ms {mid:7.1f}ms")
    bare_t, ours_t = list(times.values())[:2]
    print(
        f"ratio ours / bare: {min(ours_t) / min(bare_t):.2f}x by minimum, "
        f"{statistics.median(ours_t) / statistics.median(bare_t):.2f}x by median (target <= 1.3x)"
    )


if __name__ == "__main__":
    main()
