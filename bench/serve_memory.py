"""The resident memory of `tanka-bot serve` once ready, by process. Prints figures only.

    .venv/bin/python bench/serve_memory.py [RUNS]

The bot runs as `serve` runs it, against the local Slack simulator, with a private redis-server
(the turns run in a work process, bot.work_process: the serving process only acknowledges,
triages and queues) and with the memory store (everything in one process). Each run starts it
afresh, waits for /readyz and a few seconds more (the repo cache's first run), then reads VmRSS
of the serving process and of its work process. RUNS: default 3; min / max printed.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/ (the local fakes)

from serve_ack import start_bot
from support import Redis, bare_origin, free_port

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


def measure(env: dict[str, str]) -> tuple[float, float]:
    bot = start_bot(env, free_port())
    try:
        time.sleep(SETTLE)
        workers = python_children(bot.pid)
        return rss_mb(bot.pid), sum(rss_mb(pid) for pid in workers)
    finally:
        bot.terminate()
        bot.wait(30)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp_name, SlackServer() as slack:
        tmp = Path(tmp_name)
        env = {
            "PATH": os.environ["PATH"], "HOME": tmp_name, "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": "bench", "TANKA_BOT_SLACK_API_URL": slack.api_url,
            "TANKA_BOT_REPO_URL": str(bare_origin(tmp, REPO)), "GITHUB_TOKEN": "bench",
            "TANKA_BOT_GITHUB_REPO": "acme/infra", "ANTHROPIC_API_KEY": "bench",
        }  # fmt: skip
        (tmp / "redis").mkdir()
        redis = Redis(tmp / "redis")
        redis.start()
        try:
            figures: dict[str, list[tuple[float, float]]] = {"redis": [], "memory": []}
            for run in range(runs):
                for store, found in figures.items():
                    extra = {"REDIS_URL": redis.url} if store == "redis" else {}
                    workdir = {"TANKA_BOT_WORKDIR": str(tmp / f"work-{store}-{run}")}
                    found.append(measure({**env, **extra, **workdir}))
        finally:
            redis.stop()
    print(f"tanka-bot serve, resident memory once ready ({runs} runs, min / max)")
    serving, working = zip(*figures["redis"], strict=True)
    print(f"  with Redis: serving process   {min(serving):6.1f} / {max(serving):6.1f} MB")
    print(f"  with Redis: work process      {min(working):6.1f} / {max(working):6.1f} MB")
    alone = [s for s, _ in figures["memory"]]
    print(f"  memory store: one process     {min(alone):6.1f} / {max(alone):6.1f} MB")


if __name__ == "__main__":
    main()
