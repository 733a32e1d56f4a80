"""How fast `tanka-bot serve` acknowledges Slack, next to a bare Bolt app. Prints figures only.

    .venv/bin/python bench/serve_ack.py [EVENTS] [CONCURRENCY]

Both servers run as their own processes under waitress (16 threads) with Bolt's signature check,
against the local Slack simulator. EVENTS (default 500) signed `message` events, thread replies
in threads the bot has no session for, are posted by CONCURRENCY (default 50) clients at once,
each on a fresh connection: the bot verifies, parses, deduplicates in its store and hands off
before it answers; the bare app only acks. Latency is from sending the request to reading the
whole response, measured by the client on the same machine.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/ (the local fakes)

from support import bare_origin, free_port

from fakes.anthropic_server import FakeAnthropic
from fakes.slack_events import event_callback, message, post_signed
from fakes.slack_server import SlackServer

REPO = {"environments/dev/main.jsonnet": "{}\n", "jsonnetfile.json": "{}\n"}

SECRET = "bench-signing-secret"  # noqa: S105 - a dummy for a local benchmark
ROOT = Path(__file__).resolve().parents[1]

BARE_BOLT = """
import sys
from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient
from waitress import serve
app = App(client=WebClient(token=sys.argv[2], base_url=sys.argv[3]), signing_secret=sys.argv[4],
          token_verification_enabled=False)
app.event("message")(lambda: None)
serve(SlackRequestHandler(app), host="127.0.0.1", port=int(sys.argv[1]), threads=16,
      _quiet=True)
"""


def wait_ready(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:  # noqa: S310 - localhost
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"not ready: {url}")


def load(url: str, events: int, concurrency: int) -> tuple[list[float], float, int]:
    bodies = []
    for i in range(events):
        ts = f"1700001{i:03d}.000100"
        event = message(channel="C0BENCH", user="U0BENCH", text=f"note {i}", ts=ts,
                        thread_ts="1600000000.000100")  # fmt: skip
        payload = event_callback(event, event_id=f"EvBench{i:06d}", team_id="T0TEAM",
                                 api_app_id="A0APP", bot_user_id="U0BOT")  # fmt: skip
        bodies.append(json.dumps(payload).encode())

    def one(body: bytes) -> tuple[float, int]:
        started = time.perf_counter()
        response = post_signed(url, body, "application/json", SECRET)
        return time.perf_counter() - started, response.status

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(one, bodies))
    wall = time.perf_counter() - started
    failures = sum(1 for _, status in results if status != 200)
    return [seconds for seconds, _ in results], wall, failures


def report(name: str, latencies: list[float], wall: float, failures: int) -> None:
    ms = sorted(x * 1000 for x in latencies)
    p = statistics.quantiles(ms, n=100)
    print(
        f"{name:<22} p50 {p[49]:6.1f} ms   p99 {p[98]:6.1f} ms   max {ms[-1]:6.1f} ms   "
        f"{len(ms) / wall:6.0f} req/s   non-200: {failures}"
    )


def main() -> None:
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    concurrency = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    with (
        tempfile.TemporaryDirectory() as tmp_name,
        SlackServer() as slack,
        FakeAnthropic(api_key="bench") as model,
    ):
        tmp = Path(tmp_name)
        bot_port, bare_port = free_port(), free_port()
        env = {
            "PATH": os.environ["PATH"], "HOME": tmp_name, "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SECRET, "TANKA_BOT_SLACK_API_URL": slack.api_url,
            "TANKA_BOT_REPO_URL": str(bare_origin(tmp, REPO)), "GITHUB_TOKEN": "bench",
            "TANKA_BOT_GITHUB_REPO": "acme/infra", "ANTHROPIC_API_KEY": "bench",
            "ANTHROPIC_BASE_URL": model.url, "TANKA_BOT_WORKDIR": str(tmp / "work"),
        }  # fmt: skip
        bot = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(bot_port)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        bare = subprocess.Popen(
            [sys.executable, "-c", BARE_BOLT, str(bare_port), slack.bot_token, slack.api_url,
             SECRET],
            env={"PATH": os.environ["PATH"]}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            wait_ready(f"http://127.0.0.1:{bot_port}/readyz")
            time.sleep(1)  # the bare app has no readiness endpoint; give it its start-up time
            print(
                f"{events} signed events, {concurrency} concurrent clients, {os.cpu_count()} cores"
            )
            for name, port in (("bare Bolt app", bare_port), ("tanka-bot serve", bot_port)):
                load(f"http://127.0.0.1:{port}/slack/events", 50, 10)  # warm-up
                report(name, *load(f"http://127.0.0.1:{port}/slack/events", events, concurrency))
        finally:
            for process in (bot, bare):
                process.terminate()
                process.wait(30)


if __name__ == "__main__":
    main()
