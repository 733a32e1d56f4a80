"""How fast `tanka-bot serve` acknowledges GitHub webhooks, and how fast environments are grouped.
Prints figures only.

    .venv/bin/python bench/github_webhook.py [DELIVERIES] [CONCURRENCY] [ENVIRONMENTS]

Acks: DELIVERIES (default 500) signed `check_run` deliveries, each with its own
`X-GitHub-Delivery`, are posted to `/github/webhook` by CONCURRENCY (default 50) clients at once,
each on a fresh connection. The bot checks the signature, deduplicates the delivery in its store,
parses the payload and queues the work before it answers (the pull requests are not the bot's, so
the queued job only looks the thread up). Latency is measured by the client on the same machine.

Grouping: the rendered diffs of ENVIRONMENTS (default 2,000) environments in 8 kinds, grouped and
turned into the proposal's text (`group_envs`, `grouped_text`); rendering them is not counted.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/ and tools/

from fakes.anthropic_server import FakeAnthropic
from fakes.github_webhooks import sign
from fakes.slack_server import SlackServer
from tools.tanka.diff.groups import group_envs, grouped_text
from tools.tanka.diff.resources import Change, EnvDiff, ResourceDiff, ResourceKey

SECRET = "bench-webhook-secret"  # noqa: S105 - a dummy for a local benchmark
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from serve_ack import REPO, wait_ready  # noqa: E402 - after the path is set
from support import bare_origin, free_port, timed_post  # noqa: E402


def payload(i: int) -> bytes:
    run = {
        "id": 1000 + i, "name": "test", "head_sha": f"{i:040x}", "status": "completed",
        "conclusion": "success", "html_url": "https://github.invalid/runs/1",
        "output": {"title": "ok", "summary": "", "text": "x" * 2000},
        "pull_requests": [{"number": 10_000 + i, "head": {"ref": "b", "sha": f"{i:040x}"}}],
    }  # fmt: skip
    data = {"action": "completed", "check_run": run, "repository": {"full_name": "acme/infra"}}
    return json.dumps(data).encode()


def post(url: str, body: bytes) -> tuple[float, int]:
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "check_run",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": sign(SECRET, body),
    }
    return timed_post(url, body, headers)


def acks(deliveries: int, concurrency: int) -> None:
    with (
        tempfile.TemporaryDirectory() as tmp_name,
        SlackServer() as slack,
        FakeAnthropic(api_key="bench") as model,
    ):
        tmp = Path(tmp_name)
        port = free_port()
        env = {
            "PATH": os.environ["PATH"], "HOME": tmp_name, "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": "bench", "TANKA_BOT_SLACK_API_URL": slack.api_url,
            "TANKA_BOT_REPO_URL": str(bare_origin(tmp, REPO)), "GITHUB_TOKEN": "bench",
            "TANKA_BOT_GITHUB_REPO": "acme/infra", "ANTHROPIC_API_KEY": "bench",
            "ANTHROPIC_BASE_URL": model.url, "TANKA_BOT_WORKDIR": str(tmp / "work"),
            "GITHUB_WEBHOOK_SECRET": SECRET,
        }  # fmt: skip
        bot = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            wait_ready(f"http://127.0.0.1:{port}/readyz")
            url = f"http://127.0.0.1:{port}/github/webhook"
            bodies = [payload(i) for i in range(deliveries)]
            # Warm up on other check runs: a run already reported is a replay, dropped early.
            warm = [payload(deliveries + i) for i in range(50)]
            with ThreadPoolExecutor(concurrency) as pool:
                list(pool.map(lambda b: post(url, b), warm))
                started = time.perf_counter()
                results = list(pool.map(lambda b: post(url, b), bodies))
                wall = time.perf_counter() - started
        finally:
            bot.terminate()
            bot.wait(30)
    ms = sorted(seconds * 1000 for seconds, _ in results)
    p = statistics.quantiles(ms, n=100)
    failures = sum(1 for _, status in results if status != 202)
    print(f"{deliveries} signed deliveries, {concurrency} concurrent clients, "
          f"{os.cpu_count()} cores")  # fmt: skip
    print(f"webhook ack   p50 {p[49]:6.1f} ms   p99 {p[98]:6.1f} ms   max {ms[-1]:6.1f} ms   "
          f"{len(ms) / wall:6.0f} req/s   non-202: {failures}")  # fmt: skip


def grouping(environments: int) -> None:
    envs = []
    for i in range(environments):
        kind = i % 8
        resources = []
        for r in range(5):
            name = f"apps-v1.Deployment.ns{kind}.app{r}"
            text = f"diff -u -N LIVE-{name} MERGED-{name}\n" + "-a: 1\n+a: 2\n" * 20
            key = ResourceKey("apps/v1", "Deployment", f"ns{kind}", f"app{r}")
            resources.append(ResourceDiff(key, Change.CHANGED, text))
        envs.append(EnvDiff(f"environments/gen-{i:05d}", resources))
    started = time.perf_counter()
    groups = group_envs(envs)
    text = grouped_text(groups)
    seconds = time.perf_counter() - started
    print(f"grouping      {environments} environments into {len(groups)} groups in "
          f"{seconds * 1000:.0f} ms ({len(text)} characters of text)")  # fmt: skip


def main() -> None:
    deliveries = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    concurrency = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    environments = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    grouping(environments)
    acks(deliveries, concurrency)


if __name__ == "__main__":
    main()
