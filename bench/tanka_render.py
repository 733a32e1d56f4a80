"""Render time of Tempo's `microservices` environment: our engine vs a bare gojsonnet evaluation.

* bare: `_gojsonnet.evaluate_file` of main.jsonnet in this process with tk's import paths and
  nothing else - no import callback (so no confinement), no natives (ksonnet-util's
  manifestYaml then falls back to std.manifestYamlDoc, in Go), output left as JSON text, Go's
  collector at this process's settings (GOGC=100 unless you set it). The fastest a Python
  caller can get the file's JSON.
* ours: `render.show`, with each evaluator (go-jsonnet; jrsonnet with its fallback) - evaluation
  in a worker process (confined import callback, tk's natives
  in Python, JSON decoded and sent back), manifest extraction and processing, YAML
  byte-identical to tk - with the worker started beforehand, so process start-up is excluded.
  Also split into its stages.
Target (brief): ours within 1.3x of bare. The two are timed alternately, RUNS times each after a
warm-up, so load from other processes hits both alike; minimum and median are printed.

Our workers run Go's collector with worker_process.GO_RUNTIME_ENV (GOGC=200), which bare does not
get in this process; for a like-for-like view the bench also times bare in a subprocess with
those settings (not alternated with ours) and prints that ratio too.

The checkout is not part of this repository: fetch grafana/tempo and pass the directory
`operations/jsonnet-compiled` (its vendor/ links into ../jsonnet, so keep all of `operations/`):
    .venv/bin/python bench/tanka_render.py /tmp/tempo/operations/jsonnet-compiled [RUNS]
or set TANKA_BENCH_TEMPO to that directory. Without it the bench says so and exits 0.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import _gojsonnet

from tools.tanka.env.loader import EvalSettings, load_environment
from tools.tanka.evaluation.implementation import Implementation, choose
from tools.tanka.evaluation.worker_process import GO_RUNTIME_ENV
from tools.tanka.goyaml.emit import show_output
from tools.tanka.pipeline.render import process_loaded, show

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


def bare_with_worker_gc(root: Path, runs: int) -> list[float]:
    """bare's times in a fresh interpreter whose Go runtime has the workers' settings."""
    result = subprocess.run(
        [sys.executable, __file__, "--bare-only", str(root), str(runs)],
        env={**os.environ, **GO_RUNTIME_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    times: list[float] = json.loads(result.stdout)
    return times


def bare_only(root: Path, runs: int) -> None:
    print(json.dumps(alternate({"bare": lambda: bare(root)}, runs)["bare"]))


def report(times: dict[str, list[float]]) -> None:
    width = max(len(name) for name in times)
    print(f"{'':<{width}} {'min':>9} {'median':>9}")
    for name, values in times.items():
        low, mid = 1000 * min(values), 1000 * statistics.median(values)
        print(f"{name:<{width}} {low:7.1f}ms {mid:7.1f}ms")


def ratio(ours: list[float], bare_times: list[float]) -> str:
    by_min = min(ours) / min(bare_times)
    by_median = statistics.median(ours) / statistics.median(bare_times)
    return f"{by_min:.2f}x by minimum, {by_median:.2f}x by median"


def main() -> None:
    if sys.argv[1:2] == ["--bare-only"]:
        bare_only(Path(sys.argv[2]), int(sys.argv[3]))
        return
    given = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TANKA_BENCH_TEMPO", "")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
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
    gc = os.environ.get("GOGC", "100")

    def on(evaluator: Implementation, action: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            choose(evaluator)
            return action()

        return run

    times = alternate(
        {
            f"bare gojsonnet evaluate_file (in process, GOGC={gc})": lambda: bare(root),
            "ours: show (evaluate + process + YAML), go": on(
                "go", lambda: show(env, settings=settings)
            ),
            "ours: show (evaluate + process + YAML), rust": on(
                "rust", lambda: show(env, settings=settings)
            ),
            "  evaluate in a worker (load_environment), go": on(
                "go", lambda: load_environment(env, settings=settings)
            ),
            "  evaluate in a worker (load_environment), rust": on(
                "rust", lambda: load_environment(env, settings=settings)
            ),
            "  extract + process (already evaluated)": lambda: process_loaded(loaded),
            "  YAML (show_output)": lambda: show_output(manifests),
        },
        runs,
    )
    choose(None)
    worker_gc = " ".join(f"{k}={v}" for k, v in GO_RUNTIME_ENV.items())
    like_for_like = bare_with_worker_gc(root, runs)
    times[f"bare, {worker_gc} (subprocess, not alternated)"] = like_for_like
    report(times)
    bare_t, ours_go, ours_rust, eval_go, eval_rust = list(times.values())[:5]
    for evaluator, ours_t in (("go", ours_go), ("rust", ours_rust)):
        print(f"ratio ours ({evaluator}) / bare: {ratio(ours_t, bare_t)} (target <= 1.3x)")
        print(f"ratio ours ({evaluator}) / bare with the workers' Go settings: "
              f"{ratio(ours_t, like_for_like)}")  # fmt: skip
    print(f"ratio show, rust / go: {ratio(ours_rust, ours_go)}")
    print(f"ratio evaluation alone, rust / go: {ratio(eval_rust, eval_go)}")


if __name__ == "__main__":
    main()
