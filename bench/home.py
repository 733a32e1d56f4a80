"""The Home tab's cost: the store reads and the view, for a busy workspace. Prints figures only.

    .venv/bin/python bench/home.py [SESSIONS] [AWAITING]

SESSIONS sessions stored (default 5,000; each with a 200-message conversation, as a long-running
thread has), a tenth of them started by the user opening the Home, AWAITING (default 1,000) of
them with a proposal waiting for an approval. One Home: the requester index and the awaiting
index read (one store query each: `Sessions.by_requester`, `Sessions.awaiting`), the approval
rules applied, the view built. Memory store, and a real Redis when redis-server is on PATH.
Also the bytes those two queries return (cards, not whole sessions). Target: under 50 ms.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support import free_port

from bot.domain.proposal import Proposal
from bot.domain.sessions import Session
from bot.handlers.home import AWAITING_READ, OWN_READ, view_for
from bot.policy.rules import refusal, requirements
from bot.store.base import StoreUnavailable
from bot.store.memory import MemoryStore
from bot.store.sessions import Sessions, SessionStore

USER = "U0ALICE"


def fill(store: SessionStore, count: int, awaiting: int) -> None:
    sessions = Sessions(store)
    history = {"messages": [{"role": "user", "text": "x" * 400} for _ in range(200)]}
    for n in range(count):
        session = Session(
            channel=f"C0CH{n % 20}", thread_ts=f"1700{n:06d}.000100",
            requester=USER if n % 10 == 0 else f"U0P{n % 300}",
            request=f"scale service {n} in prod\nbecause", created=float(n), updated=float(n),
            base_branch="main", conversation=history,
        )  # fmt: skip
        if n < awaiting:
            session.proposals = [Proposal(
                ts=f"1800{n:06d}.000100", base_commit="a" * 40, tree="b" * 40, diff_hash="c",
                files=("environments/prod/main.jsonnet",), affected=("environments/prod",),
            )]  # fmt: skip
        sessions.put(session)


def one_home(store: SessionStore) -> tuple[float, int]:
    start = time.perf_counter()
    sessions = Sessions(store)
    own = sessions.by_requester(USER, OWN_READ)
    waiting = sessions.awaiting(AWAITING_READ)

    def may(session: Session) -> bool:
        record = session.latest_proposal
        assert record is not None
        reqs = requirements(record.affected, (), approvers=(USER,), allow_self=True)
        return refusal(USER, reqs, session.requester, lambda _g: frozenset()) is None

    view_for(own, [s for s in waiting if may(s)], "https://acme.slack.com/")
    seconds = time.perf_counter() - start
    size = sum(map(len, store.sessions_by(USER, OWN_READ))) + sum(
        map(len, store.awaiting(AWAITING_READ))
    )
    return seconds, size


def bench(name: str, store: SessionStore, count: int, awaiting: int) -> None:
    fill(store, count, awaiting)
    times, size = [], 0
    for _ in range(20):
        seconds, size = one_home(store)
        times.append(seconds)
    print(f"Home, {name}: {count} sessions, {awaiting} awaiting: median "
          f"{statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms; "
          f"{size / 1024:.0f} KiB read (target < 50 ms)")  # fmt: skip


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    awaiting = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    bench("memory", MemoryStore(), count, awaiting)
    binary = shutil.which("redis-server")
    if binary is None:
        print("Home, redis: skipped (no redis-server on PATH)")
        return
    from bot.store.redis import RedisStore  # noqa: PLC0415 - only when Redis is here

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
            bench("redis", store, count, awaiting)
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
