"""The approval step's git cost on a repository of realistic size. Prints figures only.

    .venv/bin/python bench/publish.py [FILES]

A repository of FILES (default 5000) small Jsonnet files in one commit, pushed to a local bare
origin; 10 files changed, 1 added, 1 deleted. Measured (min and median of several runs):
  1. make_proposal: snapshot tree, shown diff, exact-patch hash, file list;
  2. check_unchanged: what every approval pays before it publishes;
  3. publish: check, branch, commit, tree verification and push to the bare origin (the
     GitHub calls go to an in-process stub, so the figure is git's share only).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bot.github.code_host import PullRequestRef
from bot.publish.pipeline import publish
from bot.publish.proposal import check_unchanged, make_proposal

RUNS = 5


class StubHost:
    """No network: the figure is git's share of publishing."""

    def find_pull_request(self, head: str) -> PullRequestRef | None:
        return None

    def open_pull_request(
        self, head: str, base: str, title: str, body: str, draft: bool = False
    ) -> PullRequestRef:
        return PullRequestRef(1, "https://example.invalid/pull/1", head, created=True)

    def update_pull_request_body(self, number: int, body: str) -> None:
        pass

    def token_for_push(self) -> str:
        return "not-a-token"


def git(cwd: Path, *args: str) -> str:
    ident = ["-c", "user.name=B", "-c", "user.email=b@example.com"]
    done = subprocess.run(["git", *ident, *args], cwd=cwd, check=True, capture_output=True)
    return done.stdout.decode().strip()


def make_repo(root: Path, files: int) -> tuple[Path, Path]:
    work = root / "work"
    for i in range(files):
        path = work / "environments" / f"env{i % 50}" / f"file{i}.libsonnet"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{{ name: 'component-{i}', replicas: {i % 7}, image: 'app:{i}' }}\n")
    git(root, "init", "-q", "-b", "main", str(work))
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "initial")
    origin = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(work), str(origin))
    return work, origin


def change(work: Path, round_: int) -> None:
    for i in range(10):
        target = work / "environments" / f"env{i}" / f"file{i}.libsonnet"
        target.write_text(f"{{ name: 'component-{i}', replicas: {round_ + 10} }}\n")
    (work / "environments" / "env0" / f"new{round_}.libsonnet").write_text("{}\n")
    (work / "environments" / "env1" / f"file{51 + round_}.libsonnet").unlink(missing_ok=True)


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def report(name: str, samples: list[float]) -> None:
    print(f"{name:<16} min {min(samples):7.1f} ms   median {statistics.median(samples):7.1f} ms")


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    with tempfile.TemporaryDirectory(prefix="bench-publish-") as scratch:
        work, origin = make_repo(Path(scratch), files)
        base = git(work, "rev-parse", "HEAD")
        proposals, checks, publishes = [], [], []
        for round_ in range(RUNS):
            change(work, round_)
            proposals.append(timed(lambda: make_proposal(work, base)))
            proposal = make_proposal(work, base)
            checks.append(timed(lambda: check_unchanged(proposal, work)))  # noqa: B023
            publishes.append(
                timed(
                    lambda: publish(
                        work, proposal, code_host=StubHost(), base_branch="main",  # noqa: B023
                        branch="tanka-bot/bench-change", title="bench", body="bench",
                        remote_url=origin.as_uri(),
                    )
                )
            )  # fmt: skip
        print(f"repository: {files} files; change: 10 modified, 1 added, 1 deleted; {RUNS} runs")
        report("make_proposal", proposals)
        report("check_unchanged", checks)
        report("publish (git)", publishes)


if __name__ == "__main__":
    main()
