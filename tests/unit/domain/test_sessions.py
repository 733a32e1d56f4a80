"""bot.domain.sessions: the stored session model round-trips through JSON; corrupt data is named."""

from __future__ import annotations

import json

import pytest

from bot.agent.conversation import Conversation
from bot.agent.messages import Message, Text, ToolCall, ToolResult, Usage
from bot.domain.proposal import Proposal
from bot.domain.sessions import (
    TRACE_LIMIT,
    PullRequestRecord,
    Session,
    SessionCorrupt,
)
from bot.domain.thread import ThreadKey
from bot.store.sessions import load_conversation, store_conversation


def session() -> Session:
    return Session(
        channel="C0DEPLOY1",
        thread_ts="1700000000.000100",
        requester="U0REQUEST",
        request="set prod replicas to 5",
        created=1_700_000_000.0,
        updated=1_700_000_100.5,
        base_branch="main",
    )


def conversation() -> Conversation:
    call = ToolCall(
        "toolu_1",
        "file_read",
        {"path": "environments/prod/main.jsonnet", "limit": 50},
        signature=b"\x00sig\xff",
    )
    return Conversation(
        [
            Message.user("set prod replicas to 5"),
            Message("assistant", (Text("Reading the environment.", signature=b"t"), call)),
            Message("user", (ToolResult("toolu_1", "file_read", "{ replicas: 1 }", True),)),
            Message("assistant", (Text("Done: replicas is 5."),)),
        ],
        usage=Usage(1200, 300, 50, 7),
        turns=1,
    )


def test_round_trip_with_a_conversation_and_records() -> None:
    original = session()
    store_conversation(original, conversation())
    original.state = "running"
    original.revision = 3
    original.base_commit = "a" * 40
    original.proposals.append(
        Proposal(
            ts="1700000200.000300",
            base_commit="a" * 40,
            tree="b" * 40,
            diff_hash="c" * 64,
            files=("environments/prod/main.jsonnet",),
            envs=("environments/prod",),
            title="Scale prod",
            created=1.5,
        )
    )
    original.pull_request = PullRequestRecord(
        number=42, url="https://github.com/acme/deploy/pull/42", branch="tanka-bot/x"
    )
    original.record_tool("file_read", True, 0.12345)
    original.status_ts = "1700000150.000200"

    restored = Session.from_json(original.to_json())
    assert restored == original
    assert restored.key == ThreadKey("C0DEPLOY1", "1700000000.000100")
    assert restored.latest_proposal is not None
    assert restored.latest_proposal.files == ("environments/prod/main.jsonnet",)
    assert restored.trace[0].seconds == 0.123
    loaded = load_conversation(restored)
    expected = conversation()
    assert loaded.history == expected.history
    assert loaded.usage == expected.usage
    assert loaded.turns == 1


def test_empty_conversation() -> None:
    loaded = load_conversation(Session.from_json(session().to_json()))
    assert loaded.history == ()
    assert loaded.turns == 0


def test_defaults_and_properties() -> None:
    s = session()
    assert s.state == "idle"
    assert s.latest_proposal is None
    assert s.checkout_name == "C0DEPLOY1-1700000000.000100"


def test_trace_keeps_the_newest_entries() -> None:
    s = session()
    for i in range(TRACE_LIMIT + 5):
        s.record_tool(f"t{i}", True, 0.0)
    assert len(s.trace) == TRACE_LIMIT
    assert s.trace[0].tool == "t5"
    assert s.trace[-1].tool == f"t{TRACE_LIMIT + 4}"


def test_invalid_json() -> None:
    with pytest.raises(SessionCorrupt, match=r"^session: Invalid JSON"):
        Session.from_json("{not json")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"requester": None}, "requester"),
        ({"state": "exploded"}, "state"),
        ({"revision": "many"}, "revision"),
        ({"proposals": [{"ts": "1"}]}, "proposals.0.base_commit"),
        ({"pull_request": {"number": "x", "url": "u", "branch": "b"}}, "pull_request.number"),
        ({"trace": [{"tool": "t", "ok": True}]}, "trace.0.seconds"),
    ],
)
def test_corrupt_fields_are_named(change: dict[str, object], field: str) -> None:
    data = json.loads(session().to_json()) | change
    with pytest.raises(SessionCorrupt) as caught:
        Session.from_json(json.dumps(data))
    assert str(caught.value).startswith(f"{field}: ")


def test_missing_field_is_named() -> None:
    data = json.loads(session().to_json())
    del data["base_branch"]
    with pytest.raises(SessionCorrupt, match=r"^base_branch: Field required"):
        Session.from_json(json.dumps(data))


@pytest.mark.parametrize(
    ("conversation_data", "where"),
    [
        ({"version": 99, "messages": []}, "conversation: version"),
        ({"version": 1, "messages": "no"}, "conversation: messages"),
        ({"version": 1, "messages": [{"role": "system", "parts": []}]}, "conversation: messages.0"),
        (
            {"version": 1, "messages": [{"role": "user", "parts": [{"type": "tool_result"}]}]},
            "conversation: messages.0.parts.0",
        ),
        (
            {
                "version": 1,
                "messages": [
                    {
                        "role": "assistant",
                        "parts": [
                            {
                                "type": "tool_call",
                                "id": "1",
                                "name": "n",
                                "arguments": {},
                                "signature": "%%",
                            }
                        ],
                    }
                ],
            },
            "conversation: ",
        ),
        ({"version": 1, "messages": [], "usage": [1, 2]}, "conversation: usage"),
    ],
)
def test_corrupt_conversation_is_named(conversation_data: dict[str, object], where: str) -> None:
    data = json.loads(session().to_json()) | {"conversation": conversation_data}
    restored = Session.from_json(json.dumps(data))  # the envelope is fine
    with pytest.raises(SessionCorrupt) as caught:
        load_conversation(restored)
    assert str(caught.value).startswith(where)


# A session with an approved proposal as the store held it before a proposal was one type
# (bot.domain.proposal): it must load, and be written back byte for byte (with what was added).
STORED_BEFORE = (
    '{"channel":"C0DEPLOY1","thread_ts":"1700000000.000100","requester":"U0REQUEST",'
    '"request":"set prod replicas to 5","created":1700000000.0,"updated":1700000100.5,'
    '"base_branch":"main","base_commit":"' + "a" * 40 + '","branch":"tanka-bot/x",'
    '"state":"idle","revision":2,"conversation":{},"proposals":[{"ts":"1700000200.000300",'
    '"base_commit":"' + "a" * 40 + '","tree":"' + "b" * 40 + '","diff_hash":"' + "c" * 64 + '",'
    '"files":["environments/prod/main.jsonnet"],"envs":["environments/prod"],'
    '"title":"Scale prod","summary":"• prod: 1 modified","created":1700000200.5,'
    '"affected":["environments/prod"],"approved_by":["U0BOB"],'
    '"review":"no blocking problems found"}],"pull_request":{"number":42,'
    '"url":"https://github.com/acme/deploy/pull/42","branch":"tanka-bot/x","state":"open"},'
    '"past_pull_requests":[],"input_tokens":0,"output_tokens":0,"turns":0,"trace":[],'
    '"status_ts":null}'
)


def test_a_session_stored_before_loads_and_is_written_back_the_same() -> None:
    restored = Session.from_json(STORED_BEFORE)
    assert restored.proposals == [
        Proposal(
            ts="1700000200.000300", base_commit="a" * 40, tree="b" * 40, diff_hash="c" * 64,
            files=("environments/prod/main.jsonnet",), envs=("environments/prod",),
            title="Scale prod", summary="• prod: 1 modified", created=1_700_000_200.5,
            affected=("environments/prod",), approved_by=("U0BOB",),
            review="no blocking problems found",
        )
    ]  # fmt: skip
    # Written back as it was, plus the fields added since, at their defaults.
    written = STORED_BEFORE.replace('found"}]', 'found","denied":[]}]')  # a proposal's
    assert restored.to_json() == written[:-1] + ',"taking":[],"answered":[]}'


def test_the_shown_diff_checks_and_note_stay_out_of_the_store() -> None:
    original = session()
    original.proposals.append(
        Proposal(ts="1700000200.000300", base_commit="a" * 40, tree="b" * 40, diff_hash="c",
                 files=("x",), diff="+replicas: 5 SHOWN", checks="✓ SHOWN", note="SHOWN")
    )  # fmt: skip
    stored = original.to_json()
    assert "SHOWN" not in stored
    latest = Session.from_json(stored).latest_proposal
    assert latest is not None
    assert (latest.diff, latest.checks, latest.note, latest.files) == ("", "", "", ("x",))
