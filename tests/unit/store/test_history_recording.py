"""The history is recorded through the audit writer: each event, each saved session and what a
proposal or an answer showed, masked with the thread's SecretMask like an audit line."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from bot.domain.proposal import Proposal
from bot.domain.sessions import Session
from bot.domain.thread import ThreadKey
from bot.store.history import MemoryHistory, SessionQuery
from bot.store.history_backend import build_history
from bot.store.memory import MemoryStore
from bot.store.redis import RedisStore
from bot.store.sessions import Sessions
from bot.telemetry.audit import Audit
from bot.telemetry.audit_log import JsonLinesAudit
from bot.telemetry.history import Recorder, migrate
from tests.redis_server import RedisServer
from tools.redaction import SecretMask

SECRET = "hunter2-very-secret-value"


def session(request: str = "scale app") -> Session:
    return Session(channel="C1", thread_ts="1.0", requester="U0ALICE", request=request,
                   created=10.0, updated=20.0, base_branch="main")  # fmt: skip


def test_events_sessions_and_kept_items_are_masked_and_filed(tmp_path: Path) -> None:
    history = MemoryHistory(days=1)
    audit = Audit(JsonLinesAudit(tmp_path, retention=3600, max_events=1000),
                  history=Recorder(history))  # fmt: skip
    audit.start()
    masked = audit.with_mask(lambda text: text.replace(SECRET, "[redacted]"))
    key = ThreadKey("C1", "1.0")
    s = session(f"set the password to {SECRET}")
    s.proposals.append(Proposal(base_commit="b", tree="t", diff_hash="h", files=("a.jsonnet",),
                                envs=("environments/prod",), title=f"t {SECRET}"))  # fmt: skip
    Sessions(MemoryStore(), on_put=masked.session_saved).put(s)
    masked.record("C1", "1.0", "U0BOB", "approval", {"accepted": False, "why": f"no {SECRET}"})
    masked.keep("proposal", key, "1", {"number": 1, "diff": f"+password: {SECRET}\n"})
    answer = {"turn": 1, "at": 86_400.0 * 3, "text": "done", "cost": 0.5, "input_tokens": 10,
              "output_tokens": 2}  # fmt: skip
    masked.keep("answer", key, "1", answer)
    audit.close()
    _, [raw] = history.find(SessionQuery(state="proposed", env="environments/prod"),
                            offset=0, limit=5)  # fmt: skip
    everything = raw + json.dumps(history.items(key, "proposal")) + "".join(history.events(key))
    assert SECRET not in everything
    assert "[redacted]" in json.loads(raw)["request"]
    assert json.loads(history.events(key)[0])["details"]["why"] == "no [redacted]"
    assert json.loads(history.items(key, "proposal")["1"])["diff"] == "+password: [redacted]\n"
    [cost] = history.costs("1970-01-01")
    assert (cost.day, cost.usd, cost.turns) == ("1970-01-04", 0.5, 1)


def test_sessions_stored_before_the_history_are_migrated() -> None:
    store = MemoryStore()
    Sessions(store).put(session("an old request"))
    history = MemoryHistory(days=1)
    assert migrate(store, Recorder(history)) == 1
    assert migrate(store, Recorder(history)) == 0  # filed once
    total, [card] = history.find(SessionQuery(q="old"), offset=0, limit=5)
    assert total == 1
    assert json.loads(card)["request"] == "an old request"


def test_a_save_without_the_threads_mask_keeps_the_masked_texts(tmp_path: Path) -> None:
    history = MemoryHistory(days=1)
    audit = Audit(JsonLinesAudit(tmp_path, retention=3600, max_events=1000),
                  history=Recorder(history))  # fmt: skip
    audit.start()
    s = session(f"set the password to {SECRET}")
    s.proposals.append(Proposal(base_commit="b", tree="t", diff_hash="h", files=("a",),
                                title=f"set {SECRET}"))  # fmt: skip
    mask = audit.with_mask(lambda text: text.replace(SECRET, "[redacted]"))
    Sessions(MemoryStore(), on_put=mask.session_saved).put(s)
    s.state = "running"
    Sessions(MemoryStore(), on_put=audit.session_saved).put(s)  # the root view: no mask
    audit.close()
    raw = history.card(ThreadKey("C1", "1.0"))
    assert raw is not None
    assert SECRET not in raw
    assert json.loads(raw)["state"] == "running"
    assert json.loads(raw)["proposals"][0]["title"] == "set [redacted]"


def test_events_recorded_before_the_mask_knew_a_value_are_masked_again(tmp_path: Path) -> None:
    history = MemoryHistory(days=1)
    audit = Audit(JsonLinesAudit(tmp_path, retention=3600, max_events=1000),
                  history=Recorder(history))  # fmt: skip
    audit.start()
    known: set[str] = set()

    def mask(text: str) -> str:
        for value in known:
            text = text.replace(value, "[redacted]")
        return text

    view = audit.with_mask(mask)
    view.record("C1", "1.0", "U0ALICE", "message", {"text": f"set it to {SECRET}"})
    known.add(SECRET)  # the turn rendered the change: the mask learned the new value
    Sessions(MemoryStore(), on_put=view.session_saved).put(session())
    audit.close()
    [event] = history.events(ThreadKey("C1", "1.0"))
    assert json.loads(event)["details"]["text"] == "set it to [redacted]"


def test_sessions_already_in_redis_show_up(shared_redis: RedisServer) -> None:
    prefix = f"m-{uuid.uuid4().hex[:8]}:"
    store = RedisStore(shared_redis.url, prefix=prefix)
    try:
        for i in range(3):
            s = session(f"old request {i}")
            s.thread_ts = f"{i}.0"
            Sessions(store).put(s)  # saved before the history existed
        history = build_history(store, days=1, prefix=prefix)
        assert migrate(store, Recorder(history)) == 3
        total, cards = history.find(SessionQuery(channel="C1"), offset=0, limit=2)
        assert total == 3
        assert [json.loads(c)["request"] for c in cards] == ["old request 2", "old request 1"]
        assert migrate(store, Recorder(history)) == 0
    finally:
        store.close()


def test_a_secret_mask_remasks_when_it_learned_more(tmp_path: Path) -> None:
    history = MemoryHistory(days=1)
    reads: list[ThreadKey] = []
    events = history.events

    def counted(key: ThreadKey) -> list[str]:
        reads.append(key)
        return events(key)

    history.events = counted  # type: ignore[method-assign]
    audit = Audit(JsonLinesAudit(tmp_path, retention=3600, max_events=1000),
                  history=Recorder(history))  # fmt: skip
    audit.start()
    mask = SecretMask()
    view = audit.with_mask(mask.apply)
    saved = Sessions(MemoryStore(), on_put=view.session_saved)
    view.record("C1", "1.0", "U0ALICE", "message", {"text": f"set it to {SECRET}"})
    saved.put(session())
    saved.put(session())  # the mask learned nothing: the events are not read again
    mask.add(SECRET)
    saved.put(session())
    audit.close()
    assert len(reads) == 2
    [event] = events(ThreadKey("C1", "1.0"))
    assert SECRET not in event
