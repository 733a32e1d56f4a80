"""Render time of Tempo's `microservices` environment: our engine vs a bare gojsonnet evaluation.

* bare: `_gojsonnet.evaluate_file` of main.jsonnet in this process with tk's import paths and no
  import callback - the fastest a Python caller can evaluate the file, output left as JSON text;
* ours: `render.show` - evaluation in a worker process (confined import callback, natives),
  manifest extraction and processing, YAML byte-identical to tk - with the worker started
  beforehand, so process start-up is excluded. Also split into its stages.
Target (brief): ours within 1.3x of bare. Medians of RUNS runs after one warm-up.

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


def median_seconds(action: Callable[[], object], runs: int) -> float:
    action()  # warm-up: worker start, imports, file caches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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
    t_bare = median_seconds(lambda: bare(root), runs)
    t_ours = median_seconds(lambda: show(env, settings=settings), runs)
    t_eval = median_seconds(lambda: load_environment(env, settings=settings), runs)
    loaded = load_environment(env, settings=settings)
    t_process = median_seconds(lambda: process_loaded(loaded), runs)
    manifests = process_loaded(loaded)
    t_yaml = median_seconds(lambda: show_output(manifests), runs)
    print(f"bare gojsonnet evaluate_file (in process)      {1000 * t_bare:8.1f} ms")
    print(f"ours: show (evaluate + process + YAML)         {1000 * t_ours:8.1f} ms")
    print(f"  evaluate in worker, decode (load_environment) {1000 * t_eval:7.1f} ms")
    print(f"  extract + process                            {1000 * t_process:8.1f} ms")
    print(f"  YAML (show_output)                           {1000 * t_yaml:8.1f} ms")
    print(f"ratio ours / bare: {t_ours / t_bare:.2f}x (target <= 1.3x)")


if __name__ == "__main__":
    main()
