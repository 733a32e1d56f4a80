"""Time of a rendered diff for a one-file change in a generated repository of many environments.

The repository (git, one commit) is fakes/tanka_envs.py's: a shared library and ENVS static
environments, each rendering a Deployment, a Service, a ConfigMap and a Secret through it. One
environment's main.jsonnet is then edited in the working tree and `RevisionDiffer.diff` is timed:
* cold: a fresh differ (no base tree, no cached renders, importers not yet scanned),
* warm: the same differ again after a second edit (the base side comes from the cache).
Target (brief): warm under 3 s on a 2-core machine.
Run: .venv/bin/python bench/tanka_diff.py [ENVS]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/

from fakes.tanka_envs import LIBRARY, env_dir, main_jsonnet, write_project
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.revision import RevisionDiff, RevisionDiffer

T = TypeVar("T")
WORK = Path(__file__).parent / ".work" / "tanka_diff"


def git(repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@local"]
    subprocess.run(["git", *ident, *args], cwd=repo, check=True, capture_output=True)


def build(envs: int) -> Path:
    shutil.rmtree(WORK, ignore_errors=True)
    write_project(WORK, envs)
    git(WORK, "init", "-q", "-b", "main")
    git(WORK, "add", ".")
    git(WORK, "commit", "-q", "-m", "base")
    return WORK


def timed(label: str, action: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = action()
    print(f"{label:<52} {time.perf_counter() - start:8.3f} s")
    return result


def edit(repo: Path, replicas: int) -> None:
    main = repo / env_dir(7) / "main.jsonnet"
    main.write_text(
        main_jsonnet(7, extra=f"{{ deployment+: {{ spec+: {{ replicas: {replicas} }} }} }}")
    )


def describe(result: RevisionDiff) -> str:
    return f"{len(result.envs)} env(s) rendered, changed: {result.has_changes}"


def main() -> None:
    envs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    repo = timed(f"generate and commit {envs} environments", lambda: build(envs))
    trees = WORK.parent / "tanka_diff_trees"
    shutil.rmtree(trees, ignore_errors=True)
    differ = RevisionDiffer(trees=BaseTrees(trees))
    edit(repo, 3)
    cold = timed(
        "diff, cold (base tree, base render, importers)", lambda: differ.diff(repo, "HEAD")
    )
    print(f"  {describe(cold)}")
    edit(repo, 4)
    warm = timed("diff, warm (second edit, cached base render)", lambda: differ.diff(repo, "HEAD"))
    print(f"  {describe(warm)}")
    timed("diff, warm again (no further edit)", lambda: differ.diff(repo, "HEAD"))
    (repo / "lib" / "app.libsonnet").write_text(LIBRARY.replace("nginx:1.25", "nginx:1.27"))
    shared = timed(
        f"diff, library edit affecting all {envs} envs", lambda: differ.diff(repo, "HEAD")
    )
    print(f"  {describe(shared)}")
    print(f"  cache: {differ.cache.hits} hits, {differ.cache.misses} misses")


if __name__ == "__main__":
    main()
