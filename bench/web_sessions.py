"""The web view over a big history: the sessions page and a session page with 50,000 sessions
in a real Redis. Prints figures only.

    .venv/bin/python bench/web_sessions.py [SESSIONS]

SESSIONS (default 50,000) sessions over 20 channels and 200 requesters are filed in the history
(bot.store.history_redis) as the audit writer files them. Each figure is one whole request
through the WSGI app (cookie check, history query, template render), in-process, median and
95th percentile of 50: the first page for an admin (every channel), for a member of 5 of the 20
channels (the visibility union), filtered by channel, by state and environment, by request text
(`q`, which reads every candidate's request), the last page, and one session's page (a proposal
with 2,000-line diffs, 5 answers, 300 audit events). Target: the sessions page under 100 ms.
"""

from __future__ import annotations

import io
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry
from support import free_port

from bot.domain.proposal import Proposal
from bot.domain.sessions import PullRequestRecord, Session
from bot.store.base import StoreUnavailable
from bot.store.history_redis import RedisHistory
from bot.store.redis import RedisStore
from bot.telemetry.audit_log import JsonLinesAudit
from bot.telemetry.history import Recorder
from bot.web.access import Access
from bot.web.app import WebApp, WebMetrics
from bot.web.cookies import CookieJar
from bot.web.oidc import Issuer
from bot.web.settings import WebConfig
from bot.web.signin import Signin

CHANNELS = [f"C0CHAN{i:02d}" for i in range(20)]
MEMBER, ADMIN = "U0MEMBER", "U0ADMIN"
RUNS = 50


def session(i: int) -> Session:
    channel = CHANNELS[i % len(CHANNELS)]
    ts = f"{1_700_000_000 + i}.000100"
    env = f"environments/team-{i % 50}"
    proposals = [Proposal(base_commit="a" * 40, tree="b" * 40, diff_hash="c" * 64,
                          files=(f"{env}/main.jsonnet",), envs=(env,), title=f"change {i}",
                          approved_by=("U0BOB",) if i % 3 == 0 else ())]  # fmt: skip
    pr = (PullRequestRecord(number=i, url=f"https://github.test/acme/infra/pull/{i}",
                            branch=f"tanka-bot/{ts}") if i % 3 == 0 else None)  # fmt: skip
    return Session(channel=channel, thread_ts=ts, requester=f"U0USER{i % 200:03d}",
                   request=f"scale app-{i} in {env} to {i % 7 + 1} replicas",
                   created=1_700_000_000.0 + i, updated=1_700_000_000.0 + i, base_branch="main",
                   proposals=proposals if i % 4 else [], pull_request=pr, turns=2,
                   input_tokens=12_000, output_tokens=800)  # fmt: skip


def app(history: RedisHistory, store: RedisStore, tmp: Path) -> tuple[WebApp, dict[str, str]]:
    config = WebConfig("http://bench.test", "http://idp.test", "c", "s", "k" * 40, (ADMIN,), 90)
    jar = CookieJar(config.secret, store, secure=False)
    access = Access((ADMIN,), channel_members=lambda c: frozenset(
        {MEMBER} if c in CHANNELS[:5] else set()), group_members=lambda g: frozenset())  # fmt: skip
    metrics = WebMetrics(CollectorRegistry())
    signin = Signin(config, Issuer(config.issuer, "c", "s"), jar, team_id=lambda: "T",
                    user_by_email=lambda e: None, counted=metrics.signin,
                    error_page=lambda *a: [])  # fmt: skip
    web = WebApp(config=config, signin=signin, jar=jar, access=access, history=history,
                 audit=JsonLinesAudit(tmp / "audit", retention=86_400, max_events=1000),
                 metrics=metrics, workspace_url=lambda: "https://acme.slack.com/")  # fmt: skip
    cookies = {}
    for user in (ADMIN, MEMBER):
        header = jar.start_session(user)[1]
        cookies[user] = header.split(";", 1)[0]
    return web, cookies


def timed(web: WebApp, cookie: str, url: str) -> tuple[float, float, int]:
    path, _, query = url.partition("?")
    samples = []
    size = 0
    for _ in range(RUNS):
        environ: dict[str, Any] = {"REQUEST_METHOD": "GET", "PATH_INFO": path,
                                   "QUERY_STRING": query, "HTTP_COOKIE": cookie,
                                   "wsgi.input": io.BytesIO(b"")}  # fmt: skip
        status: list[str] = []
        started = time.perf_counter()
        body = b"".join(web(environ, lambda s, h, got=status: got.append(s)))
        samples.append((time.perf_counter() - started) * 1000)
        if not status[0].startswith("200"):
            raise SystemExit(f"{url}: {status[0]}")
        size = len(body)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1], size


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    binary = shutil.which("redis-server")
    if binary is None:
        print("web sessions: skipped (no redis-server on PATH)")
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp, "--save", ""]
        server = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            store = RedisStore(f"redis://127.0.0.1:{port}/0")
            for _ in range(100):
                try:
                    store.ping()
                    break
                except StoreUnavailable:
                    time.sleep(0.05)
            history = RedisHistory(store.client, store.reachable, prefix="bench:", days=90)
            recorder = Recorder(history)
            started = time.perf_counter()
            for i in range(count):
                recorder.session(session(i), lambda text: text)
            filing = time.perf_counter() - started
            print(f"{count:,} sessions filed in {filing:.1f} s "
                  f"({filing / count * 1e6:.0f} us each, one Lua call)")  # fmt: skip
            busy = session(3)  # the session page measured: a long thread's history
            long_diff = "".join(f"-  replicas: {n}\n+  replicas: {n + 1}\n" for n in range(1000))
            shown = {"number": 1, "diff": long_diff, "rendered": long_diff, "checks": "ok"}
            recorder.keep("proposal", busy.key, "1", shown)
            for turn in range(1, 6):
                answer = {"turn": turn, "text": "done " * 200, "cost": 0.01, "at": 1.7e9}
                recorder.keep("answer", busy.key, str(turn), answer)
            for n in range(300):
                recorder.event({"time": "2026-11-01T00:00:00.000Z", "channel": busy.channel,
                                "thread": busy.thread_ts, "user": "", "event": "tool_call",
                                "details": {"tool": "file_read", "ok": True, "n": n}})  # fmt: skip
            web, cookies = app(history, store, Path(tmp))
            last = f"/ui/?page={(count + 49) // 50}"
            one = f"/ui/sessions/{CHANNELS[3]}/{1_700_000_000 + 3}.000100"
            for label, user, url in (
                ("sessions, admin, first page", ADMIN, "/ui/"),
                ("sessions, member of 5/20 channels", MEMBER, "/ui/"),
                ("sessions, ?channel=", ADMIN, f"/ui/?channel={CHANNELS[7]}"),
                ("sessions, ?state=approved&env=", ADMIN,
                 "/ui/?state=approved&env=environments/team-3"),
                ("sessions, ?q= (request text)", ADMIN, "/ui/?q=app-4999"),
                ("sessions, last page", ADMIN, last),
                ("waiting for approval", MEMBER, "/ui/proposals"),
                ("one session's page (2,000-line diffs)", MEMBER, one),
            ):  # fmt: skip
                median, p95, size = timed(web, cookies[user], url)
                print(f"{label:40s} median {median:6.1f} ms  p95 {p95:6.1f} ms  ({size:,} bytes)")
            store.close()
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
