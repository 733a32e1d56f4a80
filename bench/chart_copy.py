"""What helmTemplate's confined chart copy costs: the walk and copy before Helm loads a chart.

Generated charts of FILES files (5 KB each, 50 per directory, one in ten a symlink to another file
of the chart); printed per size: the median of ROUNDS copies (CPU and wall), and, as an anchor,
the same tree copied by shutil.copytree (no confinement). The demo chart of the tests (16 files)
is timed the same way. Run: .venv/bin/python bench/chart_copy.py [FILES...]
"""

from __future__ import annotations

import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tools.tanka.natives.chart_copy import confined_chart

ROUNDS = 5
DEMO = Path(__file__).parents[1] / "tests" / "fixtures" / "tanka_helm" / "charts" / "demo"


def make_chart(root: Path, files: int) -> Path:
    chart = root / "charts" / "big"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: big\nversion: 0.1.0\n")
    for i in range(files):
        folder = chart / "templates" / f"d{i // 50}"
        folder.mkdir(exist_ok=True)
        target = folder / f"f{i}.yaml"
        if i % 10 == 9:
            target.symlink_to(f"f{i - 1}.yaml")
        else:
            target.write_text("x" * 5000)
    return chart


def timed(run: Callable[[], None]) -> tuple[float, float]:
    cpu, wall = [], []
    for _ in range(ROUNDS):
        c, w = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000


def copy_once(chart: Path, confine: Path) -> None:
    with confined_chart(str(chart), str(confine)):
        pass


def copytree_once(chart: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(chart, os.path.join(tmp, "c"), symlinks=True)


def main(sizes: list[int]) -> None:
    print("chart files  confined copy ms (cpu / wall)  shutil.copytree ms (cpu / wall)")
    cpu, wall = timed(lambda: copy_once(DEMO, DEMO.parents[1]))
    print(f"demo {sum(1 for p in DEMO.rglob('*') if p.is_file()):>6}  {cpu:8.1f} / {wall:8.1f}")
    for files in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            chart = make_chart(Path(tmp), files)
            cpu, wall = timed(functools.partial(copy_once, chart, Path(tmp)))
            base_cpu, base_wall = timed(functools.partial(copytree_once, chart))
            print(f"{files:>11}  {cpu:8.1f} / {wall:8.1f}{'':14}{base_cpu:8.1f} / {base_wall:8.1f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 500, 2000])
