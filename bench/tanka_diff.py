"""Time of a rendered diff for a one-file change in a generated repository of many environments.

The repository (git, one commit) has a shared library and ENVS static environments, each rendering
a Deployment, a Service, a ConfigMap and a Secret through it. One environment's main.jsonnet is
then edited in the working tree and `RevisionDiffer.diff` is timed:
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

from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.revision import RevisionDiff, RevisionDiffer

T = TypeVar("T")
WORK = Path(__file__).parent / ".work" / "tanka_diff"

LIBRARY = """{
  app(name, ns, replicas):: {
    deployment: {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: name, labels: { app: name } },
      spec: {
        replicas: replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: name, image: 'nginx:1.25', ports: [{ containerPort: 80 }],
            env: [{ name: 'VAR_%d' % i, value: std.toString(i) } for i in std.range(1, 20)] }] },
        },
      },
    },
    service: {
      apiVersion: 'v1', kind: 'Service', metadata: { name: name },
      spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 80 }] },
    },
    config: {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name + '-config' },
      data: { ['key%d' % i]: 'value %d for %s' % [i, ns] for i in std.range(1, 30) },
    },
    secret: {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: name + '-secret' },
      data: { password: std.base64('secret-' + ns) },
    },
  },
}
"""


def git(repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@local"]
    subprocess.run(["git", *ident, *args], cwd=repo, check=True, capture_output=True)


def write_environments(root: Path, envs: int) -> None:
    """The library and `envs` environments using it, written under `root` (also used by
    bench/tk_export_parallel.py)."""
    (root / "lib").mkdir(parents=True)
    (root / "jsonnetfile.json").write_text("{}\n")
    (root / "lib" / "app.libsonnet").write_text(LIBRARY)
    for i in range(envs):
        env = root / "environments" / f"env{i:03d}"
        env.mkdir(parents=True)
        (env / "spec.json").write_text(
            '{"apiVersion": "tanka.dev/v1alpha1", "kind": "Environment", '
            f'"metadata": {{"name": "environments/env{i:03d}"}}, '
            f'"spec": {{"namespace": "ns{i}"}}}}\n'
        )
        (env / "main.jsonnet").write_text(f"(import 'app.libsonnet').app('app{i}', 'ns{i}', 2)\n")


def build(envs: int) -> Path:
    shutil.rmtree(WORK, ignore_errors=True)
    write_environments(WORK, envs)
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
    main = repo / "environments" / "env007" / "main.jsonnet"
    main.write_text(f"(import 'app.libsonnet').app('app7', 'ns7', {replicas})\n")


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
