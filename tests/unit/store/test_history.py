"""The history (bot.store.history): the same contract in memory and in a real Redis - cards
filed and moved between the filters' indexes, items and events per thread, spend per day, and
everything forgotten `days` after its thread's last write."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from bot.domain.thread import ThreadKey
from bot.store.history import History, MemoryHistory, SessionFields, SessionQuery
from bot.store.history_redis import RedisHistory
from bot.store.redis import RedisStore
from tests.redis_server import RedisServer
from tests.unit.store.conftest import FakeClock

DAYS = 2.0


@dataclass
class Kept:
    history: History
    advance: Callable[[float], None]


@pytest.fixture(params=["memory", "redis"])
def kept(request: pytest.FixtureRequest) -> Iterator[Kept]:
    clock = FakeClock()
    if request.param == "memory":
        yield Kept(MemoryHistory(days=DAYS, clock=clock), clock.advance)
        return
    server: RedisServer = request.getfixturevalue("shared_redis")
    prefix = f"h-{uuid.uuid4().hex[:8]}:"
    store = RedisStore(server.url, prefix=prefix)
    history = RedisHistory(store.client, store.reachable, prefix=prefix, days=DAYS, clock=clock)
    yield Kept(history, clock.advance)
    store.close()


def put(
    history: History, channel: str, ts: str, *, requester: str = "U0ALICE", state: str = "idle",
    envs: tuple[str, ...] = (), text: str = "", at: float,
) -> ThreadKey:  # fmt: skip
    key = ThreadKey(channel, ts)
    card = json.dumps({"channel": channel, "thread_ts": ts, "state": state})
    history.put_session(key, card, SessionFields(requester, state, envs, text), updated=at)
    return key


def threads(found: tuple[int, list[str]]) -> tuple[int, list[str]]:
    total, cards = found
    return total, [json.loads(c)["thread_ts"] for c in cards]


def test_newest_first_paged_and_filtered(kept: Kept) -> None:
    h = kept.history
    for i in range(7):
        prod = ("environments/prod",) if i == 4 else ()
        put(h, "C1" if i % 2 else "C2", f"{i}.0", requester="U0BOB" if i < 3 else "U0ALICE",
            envs=prod, text=f"Scale app {i}", at=1000 + i)  # fmt: skip
    assert threads(h.find(SessionQuery(), offset=0, limit=3)) == (7, ["6.0", "5.0", "4.0"])
    assert threads(h.find(SessionQuery(), offset=6, limit=3)) == (7, ["0.0"])
    assert threads(h.find(SessionQuery(channel="C1"), offset=0, limit=9)) == (
        3,
        ["5.0", "3.0", "1.0"],
    )
    assert threads(h.find(SessionQuery(requester="U0BOB", channel="C2"), offset=0, limit=9)) == (
        2, ["2.0", "0.0"])  # fmt: skip
    assert threads(h.find(SessionQuery(env="environments/prod"), offset=0, limit=9)) == (1, ["4.0"])
    assert threads(h.find(SessionQuery(q="APP 3"), offset=0, limit=9)) == (1, ["3.0"])
    # Visibility: only the channels given, with every other filter on top.
    seen = frozenset({"C1"})
    assert threads(h.find(SessionQuery(channels=seen), offset=0, limit=2)) == (3, ["5.0", "3.0"])
    assert threads(h.find(SessionQuery(channels=seen), offset=2, limit=2)) == (3, ["1.0"])
    both = frozenset({"C1", "C2"})
    assert threads(h.find(SessionQuery(channels=both), offset=1, limit=3)) == (
        7, ["5.0", "4.0", "3.0"])  # fmt: skip
    assert threads(h.find(SessionQuery(channels=seen, channel="C2"), offset=0, limit=9)) == (0, [])
    assert threads(h.find(SessionQuery(channels=frozenset()), offset=0, limit=9)) == (0, [])
    assert threads(h.find(SessionQuery(channels=seen, q="app 5"), offset=0, limit=9)) == (
        1,
        ["5.0"],
    )
    assert h.channels() == ["C1", "C2"]


def test_a_card_moves_between_state_and_env_indexes(kept: Kept) -> None:
    h = kept.history
    put(h, "C1", "1.0", state="running", envs=("environments/dev",), at=1000)
    put(h, "C1", "1.0", state="proposed", envs=("environments/prod",), at=1001)
    assert threads(h.find(SessionQuery(state="running"), offset=0, limit=9)) == (0, [])
    assert threads(h.find(SessionQuery(state="proposed"), offset=0, limit=9)) == (1, ["1.0"])
    assert threads(h.find(SessionQuery(env="environments/dev"), offset=0, limit=9)) == (0, [])
    put(h, "C2", "2.0", state="proposed", at=1002)
    put(h, "C3", "3.0", state="proposed", at=1003)
    seen = frozenset({"C1", "C2"})
    assert threads(h.find(SessionQuery(channels=seen, state="proposed"), offset=0, limit=9)) == (
        2, ["2.0", "1.0"])  # fmt: skip
    assert threads(h.find(SessionQuery(channel="C1", state="running"), offset=0, limit=9)) == (
        0, [])  # fmt: skip
    put(h, "C1", "1.0", state="approved", at=1004)
    assert threads(h.find(SessionQuery(channels=seen, state="proposed"), offset=0, limit=9)) == (
        1, ["2.0"])  # fmt: skip
    assert threads(h.find(SessionQuery(), offset=0, limit=9)) == (3, ["1.0", "3.0", "2.0"])


def test_items_events_and_costs(kept: Kept) -> None:
    h = kept.history
    key = put(h, "C1", "1.0", at=1000)
    h.put_item(key, "proposal", "1", '{"diff": "+a"}')
    h.put_item(key, "proposal", "1", '{"diff": "+b"}')  # replaced
    h.put_item(key, "answer", "1", '{"text": "done"}')
    for i in range(3):
        h.add_event(key, json.dumps({"n": i}))
    assert h.items(key, "proposal") == {"1": '{"diff": "+b"}'}
    assert h.items(key, "answer") == {"1": '{"text": "done"}'}
    assert [json.loads(e)["n"] for e in h.events(key)] == [0, 1, 2]
    assert h.known([key, ThreadKey("C1", "9.9")]) == {key}
    h.add_cost("2026-11-01", "C1", 0.5, 100, 10)
    h.add_cost("2026-11-01", "C1", 0.25, 50, 5)
    h.add_cost("2026-10-01", "C1", 9.0, 1, 1)
    [row] = h.costs("2026-10-15")
    assert (row.day, row.channel, row.usd, row.input_tokens, row.output_tokens, row.turns) == (
        "2026-11-01", "C1", 0.75, 150, 15, 2)  # fmt: skip


def test_history_goes_days_after_the_threads_last_write(kept: Kept) -> None:
    h = kept.history
    old = put(h, "C1", "1.0", at=1000)
    kept.advance(DAYS * 86_400 - 60)
    new = put(h, "C1", "2.0", at=2000)
    h.add_event(new, "{}")
    kept.advance(120)
    assert h.prune() == 1
    assert threads(h.find(SessionQuery(), offset=0, limit=9)) == (1, ["2.0"])
    assert h.card(new) is not None
    if isinstance(h, MemoryHistory):  # Redis expires the card by its own TTL, on real time
        assert h.card(old) is None
