"""`tanka-bot tk export -r` serial (-p 1: one environment at a time, in the process) vs parallel
(-p N: N evaluation worker processes), as whole processes, and a check that both write the same
files byte for byte.

1. A generated repository of ENVS static environments (fakes/tanka_envs.py's: a
   Deployment, a Service, a ConfigMap and a Secret each).
2. Tempo's `operations/jsonnet-compiled` (its two environments, microservices and
   microservices-with-extras), when a checkout is given: fetch grafana/tempo and pass that
   directory (keep all of `operations/`: vendor/ links into ../jsonnet) or set
   TANKA_BENCH_TEMPO. The checkout is only read (it must sit in a git work tree, which
   confines its imports); the output goes under bench/.work.
Each command runs RUNS times, alternating, after one warm-up each; minimum and median printed.
The speed-up is bounded by the machine's CPUs (printed) and by what stays serial: finding the
environments, processing and writing the manifests.
Run: .venv/bin/python bench/tk_export_parallel.py [TEMPO_JSONNET_COMPILED] [RUNS] [ENVS]
"""

from __future__ import annotations

import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/

from fakes.tanka_envs import write_project

WORK = Path(__file__).parent / ".work" / "tk_export_parallel"
TANKA_BOT = str(Path(sys.executable).parent / "tanka-bot")
# One directory per environment: Tempo's two environments hold objects of the same names.
FORMAT = "{{env.metadata.name}}/{{.apiVersion}}.{{.kind}}-{{.metadata.name}}"


def generated(envs: int) -> Path:
    root = WORK / "generated"
    shutil.rmtree(root, ignore_errors=True)
    write_project(root, envs)
    return root


def export(root: Path, paths: list[str], out: Path, parallel: int) -> float:
    shutil.rmtree(out, ignore_errors=True)
    argv = [TANKA_BOT, "tk", "export", str(out), *paths, "-r", "-p", str(parallel), "--format",
            FORMAT]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed:\n{done.stderr}")
    return took


def same_files(left: Path, right: Path) -> bool:
    names = sorted(p.relative_to(left) for p in left.rglob("*") if p.is_file())
    others = sorted(p.relative_to(right) for p in right.rglob("*") if p.is_file())
    return names == others and all(filecmp.cmp(left / n, right / n, shallow=False) for n in names)


def compare(label: str, root: Path, paths: list[str], runs: int, workers: list[int]) -> None:
    print(f"{label}:")
    outs = {p: WORK / "out" / f"{root.name}-p{p}" for p in [1, *workers]}
    for parallel, out in outs.items():
        export(root, paths, out, parallel)  # warm-up: page cache, .pyc files
    times: dict[int, list[float]] = {p: [] for p in outs}
    for _ in range(runs):
        for parallel, out in outs.items():
            times[parallel].append(export(root, paths, out, parallel))
    serial = statistics.median(times[1])
    for parallel, values in times.items():
        low, mid = min(values), statistics.median(values)
        same = (
            "" if parallel == 1 else f"  same files as -p 1: {same_files(outs[1], outs[parallel])}"
        )
        print(f"  -p {parallel:<2} min {low:7.3f} s  median {mid:7.3f} s  "
              f"x{serial / mid:4.2f} vs serial{same}")  # fmt: skip


def main() -> None:
    args = sys.argv[1:]
    tempo = args.pop(0) if args and not args[0].isdigit() else os.environ.get("TANKA_BENCH_TEMPO")
    runs = int(args[0]) if args else 3
    envs = int(args[1]) if len(args) > 1 else 40
    cpus = os.cpu_count() or 1
    print(f"CPUs: {cpus}; runs: {runs}")
    workers = sorted({2, cpus, 8})
    compare(f"generated repository, {envs} environments", generated(envs), ["environments"],
            runs, workers)  # fmt: skip
    if tempo:
        compare("Tempo operations/jsonnet-compiled (2 environments)", Path(tempo).absolute(),
                ["microservices", "microservices-with-extras"], runs, [2])  # fmt: skip
    else:
        print("Tempo: skipped (pass operations/jsonnet-compiled or set TANKA_BENCH_TEMPO)")


if __name__ == "__main__":
    main()
