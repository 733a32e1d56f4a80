"""`tanka-bot serve` from its start to ready, and each process's resident memory then. Prints
figures only.

    .venv/bin/python bench/serve_start.py [RUNS]

The bot runs as `serve` runs it, against the local Slack simulator, with a private redis-server
(the turns run in a work process, bot.work_process: the serving process only acknowledges,
triages and queues) and with the memory store (everything in one process). Its repository is a
bare clone of the Tempo checkout TANKA_BENCH_TEMPO names (its `operations/jsonnet-compiled`;
15k files), or without it a two-file repository. Each run starts it afresh in a new workdir and
times the process's start to /readyz's first 200 (the clone of a local repository costs little:
a remote's is the network's), waits a few seconds more (the repo cache's first run), then reads
VmRSS of the serving process and of its work process. RUNS: default 3; min / max printed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/ (the local fakes)

from serve_ack import start_bot
from support import Redis, bare_origin, free_port, git

from fakes.slack_server import SlackServer

REPO = {"environments/dev/main.jsonnet": "{}\n", "jsonnetfile.json": "{}\n"}
SETTLE = 5.0  # seconds after /readyz: the work process's jobs have run once


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def python_children(pid: int) -> list[int]:
    """The direct children that are Python (the work process), not git or an evaluation's."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        for child in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            if b"python" in Path(cmdline[0].decode()).name.encode():
                found.append(int(child))
    return found


def measure(env: dict[str, str]) -> tuple[float, float, float]:
    """Seconds from the start to ready, then the serving and work processes' RSS (MB)."""
    started = time.perf_counter()
    bot = start_bot(env, free_port())
    ready = time.perf_counter() - started
    try:
        time.sleep(SETTLE)
        workers = python_children(bot.pid)
        return ready, rss_mb(bot.pid), sum(rss_mb(pid) for pid in workers)
    finally:
        bot.terminate()
        bot.wait(60)


def repository(tmp: Path) -> tuple[str, Path]:
    given = os.environ.get("TANKA_BENCH_TEMPO")
    if not given:
        return "a two-file repository", bare_origin(tmp, REPO)
    top = subprocess.run(["git", "-C", given, "rev-parse", "--show-toplevel"], check=True,
                         capture_output=True, text=True).stdout.strip()  # fmt: skip
    git(tmp, "clone", "-q", "--bare", "--single-branch", "--branch", "main", top, "tempo.git")
    return f"Tempo ({top})", tmp / "tempo.git"


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp_name, SlackServer() as slack:
        tmp = Path(tmp_name)
        name, origin = repository(tmp)
        env = {
            "PATH": os.environ["PATH"], "HOME": tmp_name, "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": "bench", "TANKA_BOT_SLACK_API_URL": slack.api_url,
            "TANKA_BOT_REPO_URL": str(origin), "GITHUB_TOKEN": "bench",
            "TANKA_BOT_GITHUB_REPO": "acme/infra", "ANTHROPIC_API_KEY": "bench",
        }  # fmt: skip
        (tmp / "redis").mkdir()
        redis = Redis(tmp / "redis")
        redis.start()
        try:
            figures: dict[str, list[tuple[float, float, float]]] = {"redis": [], "memory": []}
            for run in range(runs):
                for store, found in figures.items():
                    extra = {"REDIS_URL": redis.url} if store == "redis" else {}
                    workdir = {"TANKA_BOT_WORKDIR": str(tmp / f"work-{store}-{run}")}
                    found.append(measure({**env, **extra, **workdir}))
        finally:
            redis.stop()
    print(f"tanka-bot serve on {name}, {os.cpu_count()} CPUs ({runs} runs, min / max)")
    for store, found in figures.items():
        ready, serving, working = zip(*found, strict=True)
        rows = {"start -> /readyz 200": (ready, "s")}
        if store == "redis":
            rows |= {"serving process RSS": (serving, "MB"), "work process RSS": (working, "MB")}
        else:
            rows["its one process RSS"] = (serving, "MB")
        label = "with Redis" if store == "redis" else "memory store"
        for what, (values, unit) in rows.items():
            print(f"  {label + ': ' + what:<40} {min(values):6.2f} / {max(values):6.2f} {unit}")


if __name__ == "__main__":
    main()
