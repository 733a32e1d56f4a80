"""How fast a session gets a ready checkout from the repo cache, against a fresh git clone.

Generates a repository of 10,000 files with history, clones it into a RepoCache once, then times
`RepoCache.start` (a ready checkout on a new branch), cold and with a spare checkout ready, and
a fresh `git clone` of the same repository (file:// transport, as a remote clone would be; and
a plain local-path clone, which git speeds up with hardlinks). Prints medians and the disk one
session checkout uses.
Targets: checkout under 1 s, at least 10x faster than the clone.

    .venv/bin/python bench/workspace_checkout.py [--files 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bot.workspace.repo_cache import RepoCache

ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
IDENTITY = ["-c", "user.name=Bench", "-c", "user.email=bench@example.com"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *IDENTITY, *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def generate(base: Path, files: int, commits: int) -> Path:
    """A bare origin with `files` Jsonnet-ish files and `commits` commits of history."""
    work = base / "gen"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    for i in range(files):
        path = work / f"environments/env{i // 100:03}/component{i % 100:02}.libsonnet"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{{\n  name: 'c{i}',\n  replicas: {i % 7},\n  image: 'app:{i}',\n}}\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "initial layout")
    for c in range(commits):
        for j in range(50):
            i = (c * 50 + j * 37) % files
            path = work / f"environments/env{i // 100:03}/component{i % 100:02}.libsonnet"
            path.write_text(path.read_text() + f"// change {c}\n")
        git(work, "commit", "-q", "-am", f"change {c}")
    origin = base / "origin.git"
    git(base, "clone", "-q", "--bare", str(work), str(origin))
    shutil.rmtree(work)
    return origin


def timed(action: object) -> float:
    assert callable(action)
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def disk_kib(path: Path) -> int:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tanka-bot-bench-") as scratch:
        base = Path(scratch)
        made = timed(lambda: generate(base, args.files, args.commits))
        origin = base / "origin.git"
        cache = RepoCache(base / "work", str(origin))
        first = timed(cache.ensure)
        cold, warm, clones_url, clones_path = [], [], [], []
        for run in range(args.runs):
            cold.append(timed(lambda r=run: cache.start(f"c{r}", base_branch="main", branch="b")))
            cache.replenish(1)  # what the scheduler does between sessions; not timed
            warm.append(timed(lambda r=run: cache.start(f"w{r}", base_branch="main", branch="b")))
            dest = base / f"clone{run}"
            clones_url.append(
                timed(lambda d=dest: git(base, "clone", "-q", origin.as_uri(), str(d)))
            )
            shutil.rmtree(dest)
            clones_path.append(timed(lambda d=dest: git(base, "clone", "-q", str(origin), str(d))))
            shutil.rmtree(dest)
        report(
            args, made=made, first=first, cold=cold, warm=warm, clones_url=clones_url,
            clones_path=clones_path, cache=cache,
        )  # fmt: skip


def report(
    args: argparse.Namespace,
    *,
    made: float,
    first: float,
    cold: list[float],
    warm: list[float],
    clones_url: list[float],
    clones_path: list[float],
    cache: RepoCache,
) -> None:
    ready, spare = statistics.median(cold), statistics.median(warm)
    clone = statistics.median(clones_url)
    session = cache.session_path("w0")
    lines = [
        f"repository: {args.files} files, {args.commits + 1} commits (made in {made:.1f} s)",
        f"repo cache first clone (bare):        {first:.3f} s",
        f"session checkout, spare ready (med.): {spare:.3f} s   over {args.runs} runs",
        f"session checkout, cold (median):      {ready:.3f} s",
        f"fresh git clone, file:// (median):    {clone:.3f} s   "
        f"-> {clone / spare:.0f}x the spare checkout, {clone / ready:.1f}x the cold one",
        f"fresh git clone, local path (median): {statistics.median(clones_path):.3f} s",
        f"disk per session checkout: {disk_kib(session)} KiB, of which .git "
        f"{disk_kib(session / '.git')} KiB (objects borrowed from the {disk_kib(cache.path)} KiB "
        "cache)",
        f"targets with a spare: < 1 s {'met' if spare < 1 else 'NOT met'}; >= 10x faster than "
        f"a clone {'met' if clone / spare >= 10 else 'NOT met'}",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
