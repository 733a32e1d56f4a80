"""The audit writer (masked, off the caller's thread, never blocking) and `tanka-bot audit`."""

from __future__ import annotations

import argparse
import io
import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from bot.audit_command import line, parse_since, run
from bot.errors import UserError
from bot.store.base import StoreUnavailable
from bot.telemetry.audit import Audit
from bot.telemetry.audit_log import Event, JsonLinesAudit
from tools.redaction import SecretMask


class Recording:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.gate = threading.Event()
        self.gate.set()
        self.closed = False

    def append(self, lines: Sequence[str]) -> None:
        self.gate.wait(10)
        self.lines.extend(lines)

    def read(self, *, since: float | None = None, thread: str | None = None) -> Iterator[Event]:
        return iter([json.loads(x) for x in self.lines])

    def close(self) -> None:
        self.closed = True


def test_events_are_masked_and_written_in_order() -> None:
    store = Recording()
    audit = Audit(store, clock=lambda: 1_700_000_000.5)
    audit.start()
    mask = SecretMask(["hunter2-db-password"])
    thread = audit.with_mask(mask.apply)
    text = "the password is hunter2-db-password, token ghp_abcdefghijklmnop"
    thread.record("C0D", "1.1", "U0ALICE", "message", {"text": text})
    thread.record("C0D", "1.1", "", "tool_call", {"tool": "file_edit", "ok": True})
    audit.close()
    assert store.closed
    first, second = (json.loads(x) for x in store.lines)
    assert first == {
        "time": "2023-11-14T22:13:20.500Z", "channel": "C0D", "thread": "1.1", "user": "U0ALICE",
        "event": "message", "details": {"text": first["details"]["text"]},
    }  # fmt: skip
    assert "hunter2-db-password" not in store.lines[0]
    assert "ghp_abcdefghijklmnop" not in store.lines[0]
    assert second["event"] == "tool_call"


def test_a_full_queue_drops_events_instead_of_blocking() -> None:
    store = Recording()
    dropped: list[int] = []
    audit = Audit(store, capacity=3, on_drop=dropped.append)  # the writer not yet started:
    for i in range(10):  # as if the store hung, nothing is taken off the queue
        audit.record("C0D", "1.1", "U0A", "message", {"n": i})  # returns at once
    assert sum(dropped) == 7
    audit.start()
    audit.close()
    assert [json.loads(x)["details"]["n"] for x in store.lines] == [0, 1, 2]


def test_an_unavailable_store_drops_the_batch_and_counts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("bot.telemetry.audit.time.sleep", lambda _s: None)

    class Down(Recording):
        def append(self, lines: Sequence[str]) -> None:
            raise StoreUnavailable("Redis at redis:6379 is unavailable")

    dropped: list[int] = []
    audit = Audit(Down(), on_drop=dropped.append)
    audit.start()
    audit.record("C0D", "1.1", "U0A", "cancelled", {})
    audit.close()
    assert dropped == [1]


def test_unknown_events_are_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown audit event"):
        Audit(None).record("C0D", "1.1", "U0A", "deployed", {})


def test_the_cli_prints_a_line_per_event_or_json_with_filters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = JsonLinesAudit(tmp_path / "audit", retention=86_400 * 90, max_events=1000)
    audit = Audit(store, clock=iter([1_700_000_000.0, 1_700_000_100.0]).__next__)
    audit.start()
    audit.record("C0D", "1.1", "U0A", "session_started", {"request": "scale dev"})
    audit.record("C0D", "2.2", "U0B", "approval", {"accepted": True, "missing": 1})
    audit.close()
    monkeypatch.setattr("os.environ", {"TANKA_BOT_WORKDIR": str(tmp_path)})

    def cli(*argv: str) -> str:
        out = io.StringIO()
        args = argparse.Namespace(since=None, thread=None, json=False)
        for name, value in zip(argv[::2], argv[1::2], strict=True):
            setattr(args, name, value)
        assert run(args, out) == 0
        return out.getvalue()

    assert cli().splitlines() == [
        '2023-11-14T22:13:20.000Z C0D 1.1 U0A session_started request="scale dev"',
        "2023-11-14T22:15:00.000Z C0D 2.2 U0B approval accepted=true missing=1",
    ]
    assert cli("thread", "2.2").count("\n") == 1
    assert cli("since", "2023-11-14T22:14:00Z").startswith("2023-11-14T22:15:00.000Z")
    (only,) = cli("json", True, "thread", "1.1").splitlines()  # type: ignore[arg-type]
    assert json.loads(only)["details"] == {"request": "scale dev"}


def test_since_takes_iso_times_and_refuses_anything_else() -> None:
    assert parse_since("2023-11-14T22:13:20Z") == 1_700_000_000.0
    assert parse_since("2023-11-14T22:13:20") == 1_700_000_000.0  # UTC when no zone is named
    with pytest.raises(UserError, match="not an ISO 8601 time"):
        parse_since("yesterday")
    assert line({"time": "t", "event": "cancelled", "details": {}}) == "t - - - cancelled"
