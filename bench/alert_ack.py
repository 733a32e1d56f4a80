"""How fast `tanka-bot serve` acknowledges Alertmanager's webhook. Prints figures only.

    .venv/bin/python bench/alert_ack.py [DELIVERIES] [CONCURRENCY]

DELIVERIES (default 500) version-4 notifications, each for its own alert group, are posted to
`/alerts/alertmanager` with the bearer token by CONCURRENCY (default 50) clients at once, each on
a fresh connection, as Alertmanager's webhook would. The bot checks the token, parses the payload
and queues the work before it answers; the work runs meanwhile on the same cores. After a
warm-up that starts the process's first session and lets the one-off work after its first turn
settle (a stall of a few hundred ms on a busy 2-core machine, which mentions share), three runs,
each of new groups: groups no route matches (the work: matching, a counter); groups matching a
route whose budget is one session an hour, so the first starts a session (a root post, a
checkout, a turn the model fake answers) and the rest take the group's hold and the route's
budget in the store; then more groups over the budget.
Latency is from sending the request to reading the whole response, measured by the client on
the same machine. Target: p99 under 50 ms.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/ (the local fakes)

from serve_ack import REPO, wait_ready
from support import bare_origin, free_port, timed_post

from fakes.anthropic_server import FakeAnthropic, anthropic_message, text_block
from fakes.slack_server import SlackServer

TOKEN = "bench-alerts-token"  # noqa: S105 - a dummy for a local benchmark
ROOT = Path(__file__).resolve().parents[1]


def payload(i: int, alertname: str) -> bytes:
    labels = {"alertname": alertname, "namespace": f"ns-{i}", "pod": f"app-{i}",
              "severity": "warning"}  # fmt: skip
    annotations = {"summary": "Container was OOMKilled", "description": "x" * 500,
                   "runbook_url": "https://runbooks.example.com/oom"}  # fmt: skip
    alert = {"status": "firing", "labels": labels, "annotations": annotations,
             "startsAt": "2026-11-27T02:00:00Z", "endsAt": "0001-01-01T00:00:00Z",
             "generatorURL": "http://prometheus.example.com/graph",
             "fingerprint": f"{i:016x}"}  # fmt: skip
    group = f'{{}}:{{alertname="{alertname}", namespace="ns-{i}"}}'
    data = {
        "version": "4", "groupKey": group,
        "truncatedAlerts": 0, "status": "firing", "receiver": "tanka-bot",
        "groupLabels": {"alertname": labels["alertname"], "namespace": labels["namespace"]},
        "commonLabels": labels, "commonAnnotations": annotations,
        "externalURL": "http://alertmanager.example.com", "alerts": [alert],
    }  # fmt: skip
    return json.dumps(data).encode()


def post(url: str, body: bytes) -> tuple[float, int]:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}
    return timed_post(url, body, headers)


def load(
    url: str, alertname: str, first: int, count: int, concurrency: int
) -> tuple[list[float], float, int]:
    bodies = [payload(i, alertname) for i in range(first, first + count)]
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(lambda body: post(url, body), bodies))
    wall = time.perf_counter() - started
    return [s for s, _ in results], wall, sum(1 for _, status in results if status != 200)


def wait_for_turns(slack: SlackServer, answers: int, timeout: float = 60) -> None:
    """Until the sessions' turns have answered (a thread reply each)."""
    deadline = time.monotonic() + timeout
    while (
        len([m for m in slack.bot_messages("C0BENCH") if m.thread_ts not in (None, m.ts)]) < answers
    ):
        if time.monotonic() > deadline:
            raise SystemExit("the warm-up session's turn did not answer")
        time.sleep(0.1)


def main() -> None:
    deliveries = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    concurrency = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    with (
        tempfile.TemporaryDirectory() as tmp_name,
        SlackServer() as slack,
        FakeAnthropic(api_key="bench") as model,
    ):
        tmp = Path(tmp_name)
        config = tmp / "tanka-bot.yaml"
        # Budgets of one session an hour: "warm" starts the process's first session during the
        # warm-up (its first turn loads the agent's code and the model SDK's types); "oom" starts
        # one in the measured run, then refuses the rest of its groups.
        routes = [
            {"match": {"alertname": name}, "channel": "C0BENCH", "instructions": "Look into it.",
             "max_sessions_per_hour": 1, "name": route}
            for name, route in (("Warmup", "warm"), ("KubeContainerOOMKilled", "oom"))
        ]  # fmt: skip
        config.write_text(yaml.safe_dump({"alert_routes": routes}))
        for _ in range(2):  # the two sessions' turns answer at once
            model.script(anthropic_message(text_block("Nothing to change.")))
        port = free_port()
        env = {
            "PATH": os.environ["PATH"], "HOME": tmp_name, "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": "bench", "TANKA_BOT_SLACK_API_URL": slack.api_url,
            "TANKA_BOT_REPO_URL": str(bare_origin(tmp, REPO)), "GITHUB_TOKEN": "bench",
            "TANKA_BOT_GITHUB_REPO": "acme/infra", "ANTHROPIC_API_KEY": "bench",
            "ANTHROPIC_BASE_URL": model.url, "TANKA_BOT_WORKDIR": str(tmp / "work"),
            "TANKA_BOT_ALERTS_TOKEN": TOKEN, "TANKA_BOT_CONFIG": str(config),
        }  # fmt: skip
        bot = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            wait_ready(f"http://127.0.0.1:{port}/readyz")
            url = f"http://127.0.0.1:{port}/alerts/alertmanager"
            print(f"{deliveries} notifications, {concurrency} concurrent clients, "
                  f"{os.cpu_count()} cores")  # fmt: skip
            load(url, "Warmup", 1_000_000, 1, 1)  # the first session and its turn
            load(url, "Watchdog", 1_000_000, 50, 10)
            wait_for_turns(slack, 1)
            time.sleep(3)  # let the one-off work after a process's first turn settle
            runs = (
                ("unrouted", "Watchdog", 0),
                ("routed, 1 session", "KubeContainerOOMKilled", 0),
                ("routed, over budget", "KubeContainerOOMKilled", deliveries),
            )
            for name, alertname, first in runs:
                latencies, wall, failures = load(url, alertname, first, deliveries, concurrency)
                ms = sorted(x * 1000 for x in latencies)
                p = statistics.quantiles(ms, n=100)
                print(
                    f"{name:<20} p50 {p[49]:6.1f} ms   p99 {p[98]:6.1f} ms   max {ms[-1]:6.1f} "
                    f"ms   {len(ms) / wall:6.0f} req/s   non-200: {failures}"
                )
        finally:
            bot.terminate()
            bot.wait(30)


if __name__ == "__main__":
    main()
