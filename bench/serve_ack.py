"""How fast `tanka-bot serve` acknowledges Slack, next to a bare Bolt app. Prints figures only.

    .venv/bin/python bench/serve_ack.py [EVENTS] [CONCURRENCY]

Two mixes. "replies": every event a thread reply in a thread the bot has no session for. "busy"
(a busy channel): 80% such replies, 10% mentions (each a new request, answered by the local
model), 10% approve reactions on people's messages; it also prints, a minute at most after the
burst, how many mentions were answered (exactly once), the posts into threads that were not
mentions (stray) and the Web API calls spent on events that were not for the bot.

Both servers run as their own processes under waitress (16 threads) with Bolt's signature check,
against the local Slack simulator. EVENTS (default 500) signed `message` events, thread replies
in threads the bot has no session for, are posted by CONCURRENCY (default 50) clients at once,
each on a fresh connection: the bot verifies, parses, deduplicates in its store and hands off
before it answers; the bare app only acks. Latency is from sending the request to reading the
whole response, measured by the client on the same machine, in a process of its own. The Slack
and model fakes stand for services that run elsewhere: they serve at a lower CPU priority, so
the bot's work process posting its answers during the burst is charged to the bot, not to them.

The bot runs twice (STORES, default both): with the in-memory store, which the serving process
keeps and its work process calls (bot.store.remote); with a private redis-server, where the
queue is durable. Either way the turns run in the work process (bot.work_process), so the
burst's turns do not hold the interpreter that acknowledges.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/ (the local fakes)

from support import Redis, bare_origin, free_port

from fakes.anthropic_server import FakeAnthropic, anthropic_text
from fakes.slack_events import app_mention, event_callback, message, post_signed, reaction_added
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
for kind in ("message", "app_mention", "reaction_added"):
    app.event(kind)(lambda: None)
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


def replies(events: int, prefix: str = "EvBench") -> list[bytes]:
    bodies = []
    for i in range(events):
        ts = f"1700001{i:03d}.000100"
        event = message(channel="C0BENCH", user="U0BENCH", text=f"note {i}", ts=ts,
                        thread_ts="1600000000.000100")  # fmt: skip
        bodies.append(envelope(event, f"{prefix}{i:06d}"))
    return bodies


def envelope(event: dict[str, object], event_id: str) -> bytes:
    payload = event_callback(event, event_id=event_id, team_id="T0TEAM", api_app_id="A0APP",
                             bot_user_id="U0BOT")  # fmt: skip
    return json.dumps(payload).encode()


def busy_mix(slack: SlackServer, events: int) -> tuple[list[bytes], set[str]]:
    """The busy channel's burst: the events, and the ts of the mentions among them."""
    channel, bodies, mentioned = "C0BUSY", [], set()
    people = [slack.add_message(channel, f"chatter {i}") for i in range(20)]
    for i in range(events):
        kind = i % 10
        if kind == 0:  # a mention: a new request
            ts = slack.add_message(channel, f"<@{slack.bot_user_id}> request {i}").ts
            mentioned.add(ts)
            event = app_mention(channel=channel, user="U0ASKER", ts=ts,
                                text=f"<@{slack.bot_user_id}> request {i}")  # fmt: skip
        elif kind == 1:  # an approve emoji on a person's message
            # Slack names the reacted message's author (item_user), as it does for a message
            reacted = people[i % len(people)]
            event = reaction_added(user="U0PEER", reaction="white_check_mark", channel=channel,
                                   ts=reacted.ts, item_user=reacted.user)  # fmt: skip
        else:  # people talking in their own threads
            root = people[i % len(people)].ts
            ts = slack.add_message(channel, f"reply {i}", thread_ts=root).ts
            event = message(channel=channel, user="U0PEER", text=f"reply {i}", ts=ts,
                            thread_ts=root)  # fmt: skip
        bodies.append(envelope(event, f"EvBusy{i:06d}"))
    return bodies, mentioned


def busy_outcome(slack: SlackServer, mentioned: set[str], wait: float, since: int) -> None:
    """Answered mentions (each a thread with exactly one answer), stray posts, wasted calls:
    among the Web API calls after the first `since` (an earlier run's)."""
    deadline = time.monotonic() + wait

    def calls(method: str) -> list[Any]:
        return [c for c in slack.calls()[since:] if c.method == method]

    answers: dict[str, int] = {}
    while time.monotonic() < deadline:
        answers = {}
        for call in calls("chat.postMessage"):
            if str(call.args.get("text", "")).startswith(ANSWER):
                thread = str(call.args.get("thread_ts", ""))
                answers[thread] = answers.get(thread, 0) + 1
        if len(answers) >= len(mentioned):
            break
        time.sleep(0.5)
    stray = [c for c in calls("chat.postMessage")
             if str(c.args.get("thread_ts", "")) not in mentioned]  # fmt: skip
    if os.environ.get("SHOW_STRAY"):
        for c in stray[:5]:
            print("stray:", c.args)
    lookups = len(calls("conversations.replies"))
    print(
        f"{'':<22} mentions answered {sum(1 for t in mentioned if t in answers)}/{len(mentioned)}"
        f" within {wait:.0f} s, answered twice {sum(1 for n in answers.values() if n > 1)},"
        f" stray posts {len(stray)}, conversations.replies calls {lookups}"
    )


ANSWER = "Bench answer"


def load(url: str, bodies: list[bytes], concurrency: int) -> tuple[list[float], float, int]:
    """Post `bodies` from a client process of its own: the Slack and model fakes serve the
    bot's calls from this one meanwhile, and must not hold the clients' interpreter (Slack's
    own servers are not on the bot's machine)."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as client:
        return client.submit(_load, url, bodies, concurrency).result()


def _load(url: str, bodies: list[bytes], concurrency: int) -> tuple[list[float], float, int]:

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


def cpu_seconds(pid: int, *, tree: bool = False) -> float:
    """User and system CPU time of process `pid` so far, with its children's when `tree` (the
    bot's work process is its child); Linux only, else 0."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split() if tree else []
    except OSError:
        return 0.0
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(cpu_seconds(int(child), tree=True) for child in children)


def report(
    name: str, latencies: list[float], wall: float, failures: int,
    cpu: tuple[float, float] | None = None,
) -> None:  # fmt: skip
    """One line of figures; `cpu`: the server's CPU seconds over the run, its own and with its
    children's (less noisy than the latencies on a shared machine), shown per request."""
    ms = sorted(x * 1000 for x in latencies)
    p = statistics.quantiles(ms, n=100)
    per = ""
    if cpu is not None:
        own, tree = (seconds * 1000 / len(ms) for seconds in cpu)
        per = f"   CPU {own:5.2f} ms/req" + (
            f" ({tree:.2f} with its children)" if tree > own else ""
        )
    print(
        f"{name:<22} p50 {p[49]:6.1f} ms   p99 {p[98]:6.1f} ms   max {ms[-1]:6.1f} ms   "
        f"{len(ms) / wall:6.0f} req/s   non-200: {failures}{per}"
    )


def measured(url: str, pid: int, bodies: list[bytes], concurrency: int) -> tuple[Any, ...]:
    """`load`'s figures and the server's CPU seconds while it ran (its own, with children)."""
    before = cpu_seconds(pid), cpu_seconds(pid, tree=True)
    latencies, wall, failures = load(url, bodies, concurrency)
    after = cpu_seconds(pid), cpu_seconds(pid, tree=True)
    return latencies, wall, failures, (after[0] - before[0], after[1] - before[1])


LOG = open(os.environ["BENCH_LOG"], "ab") if os.environ.get("BENCH_LOG") else subprocess.DEVNULL  # noqa: SIM115 - open for the whole run


def start_bot(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    bot = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=LOG, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    wait_ready(f"http://127.0.0.1:{port}/readyz")
    return bot


def main() -> None:
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    concurrency = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    mixes = os.environ.get("MIXES", "replies,busy").split(",")
    stores = os.environ.get("STORES", "memory,redis").split(",")
    with (
        tempfile.TemporaryDirectory() as tmp_name,
        SlackServer() as slack,
        FakeAnthropic(api_key="bench") as model,
    ):
        model.script(*[anthropic_text(f"{ANSWER} {i}.") for i in range(events * len(stores))])
        for fake in (slack, model):  # Slack and the model are not on the bot's machine
            fake.yield_cpu()
        tmp = Path(tmp_name)
        bare_port = free_port()
        env = {
            "PATH": os.environ["PATH"], "HOME": tmp_name, "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SECRET, "TANKA_BOT_SLACK_API_URL": slack.api_url,
            "TANKA_BOT_REPO_URL": str(bare_origin(tmp, REPO)), "GITHUB_TOKEN": "bench",
            "TANKA_BOT_GITHUB_REPO": "acme/infra", "ANTHROPIC_API_KEY": "bench",
            "ANTHROPIC_BASE_URL": model.url,
        }  # fmt: skip
        bare = subprocess.Popen(
            [sys.executable, "-c", BARE_BOLT, str(bare_port), slack.bot_token, slack.api_url,
             SECRET],
            env={"PATH": os.environ["PATH"]}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        (tmp / "redis").mkdir()
        redis = Redis(tmp / "redis")  # a private one: no other run's dedupe marks
        redis.start()
        try:
            time.sleep(1)  # the bare app has no readiness endpoint; give it its start-up time
            print(
                f"{events} signed events, {concurrency} concurrent clients, {os.cpu_count()} cores"
            )
            bare_url = f"http://127.0.0.1:{bare_port}/slack/events"
            load(bare_url, replies(50, "EvWarmBare"), 10)  # warm-up
            for store in stores:
                port = free_port()
                store_env = {"REDIS_URL": redis.url} if store == "redis" else {}
                workdir = {"TANKA_BOT_WORKDIR": str(tmp / f"work-{store}")}
                bot = start_bot({**env, **store_env, **workdir}, port)
                try:
                    print(f"== tanka-bot serve with the {store} store")
                    url = f"http://127.0.0.1:{port}/slack/events"
                    run_mixes(slack, mixes, events, concurrency, bare=(bare_url, bare.pid),
                              bot=(url, bot.pid))  # fmt: skip
                finally:
                    bot.terminate()
                    bot.wait(30)
        finally:
            redis.stop()
            bare.terminate()
            bare.wait(30)


def run_mixes(
    slack: SlackServer, mixes: list[str], events: int, concurrency: int, *,
    bare: tuple[str, int], bot: tuple[str, int],
) -> None:  # fmt: skip
    """Each mix against the bare app and the bot, one after the other: (url, pid) each."""
    load(bot[0], replies(50, f"EvWarm{bot[1]}"), 10)  # warm-up
    if "replies" in mixes:
        print("mix: replies in threads with no session")
        report("bare Bolt app", *measured(*bare, replies(events), concurrency))
        report("tanka-bot serve", *measured(*bot, replies(events, f"EvBench{bot[1]}"),
                                            concurrency))  # fmt: skip
    if "busy" not in mixes:
        return
    print("mix: busy channel (80% replies, 10% mentions, 10% reactions, not the bot's)")
    bodies, mentioned = busy_mix(slack, events)
    before = len(slack.calls())
    report("bare Bolt app", *measured(*bare, bodies, concurrency))
    assert len(slack.calls()) == before  # the bare app calls nothing
    latencies, wall, failures, cpu = measured(*bot, bodies, concurrency)
    # "with its children": the work process's, the turns the burst's mentions start meanwhile.
    report("tanka-bot serve", latencies, wall, failures, cpu)
    kinds = {0: "mentions", 1: "reactions"}
    by_kind: dict[str, list[float]] = {}
    for i, seconds in enumerate(latencies):
        by_kind.setdefault(kinds.get(i % 10, "replies"), []).append(seconds * 1000)
    print(f"{'':<22} " + "   ".join(
        f"{kind} p50 {statistics.median(ms):.1f} / max {max(ms):.1f} ms"
        for kind, ms in by_kind.items()))  # fmt: skip
    busy_outcome(slack, mentioned, float(os.environ.get("BUSY_WAIT", "60")), before)


if __name__ == "__main__":
    main()
