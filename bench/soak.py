"""Two `tanka-bot serve` replicas on one Redis under a steady busy-channel mix, with faults on a
schedule. Prints figures only.

    DURATION=600 .venv/bin/python bench/soak.py

Traffic (about 10 signed events a second, spread over both replicas as a load balancer would):
70% replies in people's threads, 10% emoji on people's messages, 10% plain mentions (answered
with text) and 10% mentions that ask for a change (a proposal, which the requester approves: a
pull request). Faults, at fractions of DURATION: Redis restarted with its data (0.15), six Slack
429s (0.30), three Slack 500s (0.40), two GitHub 502s on opening a pull request (0.50), one
replica SIGKILLed (0.60) and started again (0.70). Then it waits up to a minute for the last
answers and prints: mentions sent and answered (told "the store is unavailable" counts apart),
duplicate answers, stray posts (into threads that are not mentions), pull requests and
duplicates, 5xx answers, ack p50/p99, and each replica's RSS at start and at the end.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for fakes/ (the local fakes)

from serve_ack import wait_ready
from serve_turns import origin
from support import Redis, free_port

from fakes.anthropic_server import FakeAnthropic, anthropic_text, anthropic_tool_use
from fakes.github_server import FakeGitHub
from fakes.http_server import RecordedRequest, Reply
from fakes.slack_events import app_mention, event_callback, message, post_signed, reaction_added
from fakes.slack_server import SlackServer

ROOT = Path(__file__).resolve().parents[1]
SECRET = "soak-signing-secret"  # noqa: S105 - a dummy for a local benchmark
TOKEN = "ghp_" + "SoakDummyToken0123456789abcdef"
CHANNEL = "C0SOAK"
ASKER = "U0ASKER"
DONE = "Done, nothing to change."
STORE_DOWN = "can't take work right now"


class SoakModel(FakeAnthropic):
    """Answers from the conversation alone (no script), so any number of turns can run at once:
    a request naming `envN` edits that environment, then answers; anything else is answered."""

    def unscripted(self, request: RecordedRequest) -> Reply:
        body = request.json if isinstance(request.json, dict) else {}
        messages = body.get("messages", [])
        first = json.dumps(messages[0]) if messages else ""
        done = sum(1 for m in messages if m.get("role") == "assistant")
        for i in range(4):
            if f"scale env{i}" in first and done == 0:
                edit = {"path": f"environments/env{i}/main.jsonnet", "old_text": "replicas=1",
                        "new_text": "replicas=3"}  # fmt: skip
                return self.render(anthropic_tool_use(f"t{time.time_ns()}", "file_edit", edit),
                                   request)  # fmt: skip
        return self.render(anthropic_text(DONE if done == 0 else "Scaled it."), request)


@dataclass
class Replica:
    name: str
    port: int
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port",
                 str(self.port)], cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        wait_ready(f"http://127.0.0.1:{self.port}/readyz")

    def kill(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)
            self.process = None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def rss_mb(self) -> float:
        """The replica's resident memory: the serving process and its children (with Redis,
        the work process that runs the turns)."""
        if self.process is None:
            return 0.0
        return sum(_rss_mb(pid) for pid in [self.process.pid, *_children(self.process.pid)])


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _rss_mb(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:  # gone meanwhile
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Tally:
    acks: list[float] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    unreachable: int = 0
    mentions: dict[str, str] = field(default_factory=dict)  # ts -> "text" | "change"
    approved: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


def send(replicas: list[Replica], body: bytes, tally: Tally, i: int) -> None:
    """Deliver as Slack would through a load balancer: to a live replica, once more if the
    first could not be reached."""
    for attempt in range(2):
        live = [r for r in replicas if r.alive] or replicas
        target = live[(i + attempt) % len(live)]
        started = time.perf_counter()
        try:
            response = post_signed(f"http://127.0.0.1:{target.port}/slack/events", body,
                                   "application/json", SECRET, timeout=10)  # fmt: skip
        except OSError:
            with tally.lock:
                tally.unreachable += 1
            continue
        with tally.lock:
            tally.acks.append(time.perf_counter() - started)
            tally.statuses.append(response.status)
        return


def traffic(slack: SlackServer, replicas: list[Replica], tally: Tally, until: float) -> None:
    people = [slack.add_message(CHANNEL, f"standup {i}", user="U0PEER").ts for i in range(10)]
    i = 0
    while time.monotonic() < until:
        kind = i % 10
        if kind in (0, 5):
            change = kind == 5
            text = f"<@{slack.bot_user_id}> " + (f"scale env{i % 4} to 3" if change else f"hi {i}")
            ts = slack.add_message(CHANNEL, text, user=ASKER).ts
            with tally.lock:
                tally.mentions[ts] = "change" if change else "text"
            event = app_mention(channel=CHANNEL, user=ASKER, text=text, ts=ts)
        elif kind == 1:
            event = reaction_added(user="U0PEER", reaction="white_check_mark", channel=CHANNEL,
                                   ts=people[i % len(people)], item_user="U0PEER")  # fmt: skip
        else:
            root = people[i % len(people)]
            ts = slack.add_message(CHANNEL, f"chatter {i}", user="U0PEER", thread_ts=root).ts
            event = message(channel=CHANNEL, user="U0PEER", text=f"chatter {i}", ts=ts,
                            thread_ts=root)  # fmt: skip
        payload = event_callback(event, event_id=f"EvSoak{i:07d}", team_id="T0TEAM",
                                 api_app_id="A0APP", bot_user_id=slack.bot_user_id)  # fmt: skip
        threading.Thread(target=send, args=(replicas, json.dumps(payload).encode(), tally, i),
                         daemon=True).start()  # fmt: skip
        i += 1
        time.sleep(0.1)


def approver(slack: SlackServer, replicas: list[Replica], tally: Tally, until: float) -> None:
    """The requester approves each proposal once (another event for the replicas)."""
    n = 0
    while time.monotonic() < until:
        with tally.lock:
            waiting = [ts for ts, k in tally.mentions.items()
                       if k == "change" and ts not in tally.approved]  # fmt: skip
        for ts in waiting:
            proposal = next((m for m in slack.bot_messages(CHANNEL, ts)
                             if "Proposal 1" in m.text + str(m.blocks or "")), None)  # fmt: skip
            if proposal is None:
                continue
            with tally.lock:
                tally.approved.add(ts)
            event = reaction_added(user=ASKER, reaction="white_check_mark", channel=CHANNEL,
                                   ts=proposal.ts, item_user=slack.bot_user_id)  # fmt: skip
            payload = event_callback(event, event_id=f"EvApprove{n:06d}", team_id="T0TEAM",
                                     api_app_id="A0APP", bot_user_id=slack.bot_user_id)  # fmt: skip
            send(replicas, json.dumps(payload).encode(), tally, n)
            n += 1
        time.sleep(1.0)


@dataclass
class Parties:
    redis: Redis
    slack: SlackServer
    github: FakeGitHub
    victim: Replica


def faults(duration: float, start: float, parties: Parties) -> None:
    def at(fraction: float) -> None:
        time.sleep(max(0.0, start + duration * fraction - time.monotonic()))

    at(0.15)
    print(f"[{time.monotonic() - start:5.0f} s] Redis restarted")
    parties.redis.stop()
    time.sleep(min(5.0, duration / 60))
    parties.redis.start()
    at(0.30)
    print(f"[{time.monotonic() - start:5.0f} s] Slack: 6 x 429")
    parties.slack.rate_limit("chat.postMessage", retry_after=1, times=6)
    at(0.40)
    print(f"[{time.monotonic() - start:5.0f} s] Slack: 3 x 500")
    parties.slack.fail("chat.postMessage", status=500, times=3)
    at(0.50)
    print(f"[{time.monotonic() - start:5.0f} s] GitHub: 2 x 502 on opening a pull request")
    parties.github.fail(502, "Bad Gateway", method="POST", path=r"/pulls$", times=2)
    at(0.60)
    victim = parties.victim
    print(f"[{time.monotonic() - start:5.0f} s] replica {victim.name} SIGKILLed")
    victim.kill()
    at(0.70)
    victim.start()
    print(f"[{time.monotonic() - start:5.0f} s] replica {victim.name} started again")


def outcome(slack: SlackServer, tally: Tally) -> dict[str, Any]:
    answered = store_down = duplicates = 0
    for ts, kind in tally.mentions.items():
        texts = [m.text + str(m.blocks or "") for m in slack.bot_messages(CHANNEL, ts)]
        marker = DONE if kind == "text" else "Proposal 1"
        hits = sum(marker in t for t in texts)
        answered += hits > 0
        duplicates += hits > 1
        store_down += hits == 0 and any(STORE_DOWN in t for t in texts)
    stray = [c for c in slack.calls("chat.postMessage")
             if str(c.args.get("thread_ts", "")) not in tally.mentions]  # fmt: skip
    return {"answered": answered, "store_down": store_down, "duplicates": duplicates,
            "stray": len(stray)}  # fmt: skip


def told(texts: list[str]) -> bool:
    """Whether a thread's messages answer its approval: the pull request opened or updated
    (`pull request #N`), or why not (a refusal, a failure, the store down), after the proposal.
    Not the proposal's own approve line, nor a cut-off notice."""
    start = next((i for i, t in enumerate(texts) if "Proposal 1" in t), len(texts))
    return any(
        "pull request #" in t or "not opened" in t
        or (t.startswith(":warning:") and "cut off" not in t) or STORE_DOWN in t
        for t in texts[start + 1 :]
    )  # fmt: skip


def opened(slack: SlackServer, tally: Tally) -> int:
    """Approvals answered: in their thread (the pull request, or why not), or - an approval that
    reached a replica while the store was down, which cannot know the thread - in a message to
    the approver alone."""
    with tally.lock:
        approved = list(tally.approved)
    in_thread = sum(
        told([m.text + str(m.blocks or "") for m in slack.bot_messages(CHANNEL, ts)])
        for ts in approved
    )
    alone = sum(e.user == ASKER and STORE_DOWN in e.text for e in slack.ephemerals)
    return min(in_thread + alone, len(approved))


def main() -> None:
    duration = float(os.environ.get("DURATION", "600"))
    with (
        tempfile.TemporaryDirectory() as tmp_name,
        SlackServer() as slack,
        SoakModel(api_key="soak") as model,
        FakeGitHub(tokens=(TOKEN,)) as github,
    ):
        tmp = Path(tmp_name)
        github.add_repo("acme", "infra")
        (tmp / "redis").mkdir()
        redis = Redis(tmp / "redis")
        redis.start()
        base = {
            "PATH": os.environ["PATH"], "HOME": tmp_name, "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SECRET, "TANKA_BOT_SLACK_API_URL": slack.api_url,
            "TANKA_BOT_REPO_URL": str(origin(tmp)), "GITHUB_TOKEN": TOKEN,
            "GITHUB_API_URL": github.url, "TANKA_BOT_GITHUB_REPO": "acme/infra",
            "ANTHROPIC_API_KEY": "soak", "ANTHROPIC_BASE_URL": model.url,
            "REDIS_URL": redis.url, "TANKA_BOT_LEASE_TTL": "5", "TANKA_BOT_REVIEW": "false",
            "NO_PROXY": "127.0.0.1,localhost",
        }  # fmt: skip
        replicas = [
            Replica(
                name,
                free_port(),
                {**base, "TANKA_BOT_WORKDIR": str(tmp / name)},
                tmp / f"{name}.log",
            )
            for name in ("a", "b")
        ]
        tally = Tally()
        try:
            for replica in replicas:
                replica.start()
            print(f"soak: {duration:.0f} s, two replicas on one Redis, {os.cpu_count()} cores")
            start = time.monotonic()
            until = start + duration
            workers = [
                threading.Thread(target=traffic, args=(slack, replicas, tally, until)),
                threading.Thread(target=approver, args=(slack, replicas, tally, until + 60)),
                threading.Thread(target=faults, args=(duration, start,
                                 Parties(redis, slack, github, replicas[0]))),
            ]  # fmt: skip
            for w in workers:
                w.start()
            time.sleep(min(10.0, duration / 10))
            rss_start = {r.name: r.rss_mb() for r in replicas}
            workers[0].join()
            workers[2].join()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                result = outcome(slack, tally)
                settled = opened(slack, tally) >= len(tally.approved)
                if settled and result["answered"] + result["store_down"] >= len(tally.mentions):
                    break
                time.sleep(1.0)
            workers[1].join(timeout=0)
            rss_end = {r.name: r.rss_mb() for r in replicas}
            result = outcome(slack, tally)
            pulls = github.repos["acme/infra"].pulls
            heads = [p.head for p in pulls.values()]
            ms = sorted(x * 1000 for x in tally.acks)
            q = statistics.quantiles(ms, n=100) if len(ms) > 1 else [0.0] * 99
            fivexx = sum(1 for s in tally.statuses if s >= 500)
            print(f"events sent {len(tally.statuses)} (+{tally.unreachable} to a replica that "
                  "was down, sent again to the other)")  # fmt: skip
            print(f"mentions sent {len(tally.mentions)}, answered {result['answered']}, told the "
                  f"store was down {result['store_down']}, lost "
                  f"{len(tally.mentions) - result['answered'] - result['store_down']}")  # fmt: skip
            print(f"duplicate answers {result['duplicates']}, stray posts {result['stray']}, "
                  f"5xx answers {fivexx}")  # fmt: skip
            print(f"approvals {len(tally.approved)}, answered {opened(slack, tally)}, "
                  f"pull requests {len(pulls)}, duplicate pull requests "
                  f"{len(heads) - len(set(heads))}")  # fmt: skip
            print(f"ack p50 {q[49]:.1f} ms, p99 {q[98]:.1f} ms, max {ms[-1] if ms else 0:.1f} ms")
            for r in replicas:
                print(f"replica {r.name}: RSS {rss_start[r.name]:.0f} MB at start, "
                      f"{rss_end[r.name]:.0f} MB at the end"
                      + (" (restarted after the kill)" if r is replicas[0] else ""))  # fmt: skip
        finally:
            for replica in replicas:
                if replica.process is not None:
                    replica.process.terminate()
                    replica.process.wait(30)
            redis.stop()


if __name__ == "__main__":
    main()
