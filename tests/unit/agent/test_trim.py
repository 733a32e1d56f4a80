"""bot.agent.trim: long histories fit the window without breaking call/result pairing."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.agent.messages import Message, Text, ToolCall, ToolResult
from bot.agent.trim import DROPPED, estimate_tokens, trim_history

_ids = itertools.count()


def call(name: str = "file_read") -> ToolCall:
    return ToolCall(f"call_{next(_ids)}", name, {"path": "environments/prod/main.jsonnet"})


def exchange(request: str, outputs: Sequence[str], answer: str = "done") -> list[Message]:
    """A user request, one tool round per output, then the assistant's answer."""
    messages = [Message.user(request)]
    for output in outputs:
        c = call()
        messages.append(Message("assistant", (Text("looking"), c)))
        messages.append(Message("user", (ToolResult(c.id, c.name, output),)))
    messages.append(Message("assistant", (Text(answer),)))
    return messages


def problems(history: Sequence[Message]) -> list[str]:
    """What a provider would refuse: results without their call, calls without their result."""
    found: list[str] = []
    for i, message in enumerate(history):
        for result in message.tool_results:
            previous = history[i - 1] if i > 0 else None
            if previous is None or result.call_id not in {c.id for c in previous.tool_calls}:
                found.append(f"{i}: result {result.call_id} without its call")
        calls = message.tool_calls
        if calls and i + 1 < len(history):
            answered = {r.call_id for r in history[i + 1].tool_results}
            found.extend(
                f"{i}: call {c.id} without a result" for c in calls if c.id not in answered
            )
    if history and history[0].role != "user":
        found.append("0: does not start with a user message")
    return found


def contents(history: Sequence[Message]) -> list[str]:
    return [r.content for m in history for r in m.tool_results]


def test_estimate_counts_text_calls_and_results() -> None:
    c = ToolCall("1", "abcd", {})  # 4 + len("{}")
    history = [
        Message.user("x" * 40),
        Message("assistant", (c,)),
        Message("user", (ToolResult("1", "abcd", "y" * 34),)),
    ]
    assert estimate_tokens(history) == (40 + 6 + 34) // 4


def test_fitting_history_is_unchanged() -> None:
    history = exchange("scale prod", ["a" * 100])
    assert trim_history(history, 10_000) == tuple(history)


def test_tool_results_are_dropped_oldest_first() -> None:
    history = exchange("q", ["A" * 4000, "B" * 4000, "C" * 4000])
    budget = estimate_tokens(history) - 500  # dropping one 4,000-char output is enough
    trimmed = trim_history(history, budget)
    assert contents(trimmed) == [DROPPED, "B" * 4000, "C" * 4000]
    assert len(trimmed) == len(history)
    assert problems(trimmed) == []


def test_dropped_results_keep_their_call_ids_and_error_flags() -> None:
    history = exchange("q", ["A" * 4000])
    c = history[1].tool_calls[0]
    history[2] = Message("user", (ToolResult(c.id, c.name, "A" * 4000, is_error=True),))
    trimmed = trim_history(history, 10)
    [result] = trimmed[2].tool_results
    assert (result.call_id, result.name, result.content, result.is_error) == (
        c.id,
        c.name,
        DROPPED,
        True,
    )
    assert trimmed[1] == history[1]  # the call itself is kept


def test_whole_exchanges_are_dropped_only_when_outputs_are_not_enough() -> None:
    first = exchange("first " + "x" * 8000, ["A" * 100])
    second = exchange("second", ["B" * 100])
    history = first + second
    trimmed = trim_history(history, 1000)
    assert trimmed[0] == Message.user("second")
    assert len(trimmed) == len(second)
    assert contents(trimmed) == [DROPPED]
    assert problems(trimmed) == []


def test_outputs_are_dropped_before_any_exchange() -> None:
    first = exchange("first", ["A" * 8000])
    second = exchange("second", ["B" * 100])
    trimmed = trim_history(first + second, estimate_tokens(first + second) - 1000)
    assert trimmed[0] == Message.user("first")
    assert contents(trimmed) == [DROPPED, "B" * 100]


def test_the_current_exchange_is_never_dropped() -> None:
    history = exchange("old", ["A"]) + exchange("current " + "z" * 10_000, ["B" * 10_000])
    trimmed = trim_history(history, 10)
    assert trimmed[0] == Message.user("current " + "z" * 10_000)
    assert contents(trimmed) == [DROPPED]
    assert problems(trimmed) == []


def test_a_user_message_carrying_results_and_text_is_not_an_exchange_start() -> None:
    c = call()
    history = [
        Message.user("old " + "o" * 8000),
        Message("assistant", (c,)),
        # Tool results plus a queued human message: still part of the running exchange.
        Message("user", (ToolResult(c.id, c.name, "r"), Text("also dev please"))),
        Message("assistant", (Text("ok"),)),
        Message.user("new"),
        Message("assistant", (Text("fine"),)),
    ]
    trimmed = trim_history(history, 50)
    assert trimmed[0] == Message.user("new")
    assert problems(trimmed) == []


# any history

_output = st.integers(0, 3000).map(lambda n: "o" * n)
_exchange = st.tuples(
    st.integers(0, 2000).map(lambda n: "q" * n),
    st.lists(st.lists(_output, min_size=1, max_size=3), max_size=4),  # rounds of parallel calls
    st.booleans(),  # answered (the last exchange may be mid-turn)
)


def build(spec: list[tuple[str, list[list[str]], bool]]) -> list[Message]:
    messages: list[Message] = []
    for request, rounds, answered in spec:
        messages.append(Message.user(request or "?"))
        for outputs in rounds:
            calls = [call() for _ in outputs]
            messages.append(Message("assistant", tuple(calls)))
            messages.append(
                Message(
                    "user",
                    tuple(ToolResult(c.id, c.name, o) for c, o in zip(calls, outputs, strict=True)),
                )
            )
        if answered:
            messages.append(Message("assistant", (Text("answer"),)))
    return messages


@settings(max_examples=300, deadline=None)
@given(spec=st.lists(_exchange, min_size=1, max_size=6), budget=st.integers(0, 6000))
def test_trimmed_history_is_always_well_formed(
    spec: list[tuple[str, list[list[str]], bool]], budget: int
) -> None:
    history = build(spec)
    assert problems(history) == []
    trimmed = trim_history(history, budget)
    assert problems(trimmed) == []
    assert trimmed, "never empty"
    # A suffix of the history, whole exchanges cut from the front, outputs replaced in place.
    tail = history[len(history) - len(trimmed) :]
    assert trimmed[0] == tail[0]
    assert trimmed[0].role == "user"
    assert not trimmed[0].tool_results
    for kept, original in zip(trimmed, tail, strict=True):
        assert kept.role == original.role
        assert [type(p) for p in kept.parts] == [type(p) for p in original.parts]
        if not original.tool_results:
            assert kept == original
    # Dropped outputs are a prefix of the kept ones: oldest first.
    kept_outputs = contents(trimmed)
    dropped = [c == DROPPED for c in kept_outputs]
    assert dropped == sorted(dropped, reverse=True)
    # Exchanges are dropped only when dropping every output was not enough.
    if len(trimmed) < len(history):
        assert all(dropped)
    if estimate_tokens(trimmed) > budget:
        # Only the last exchange is left, with every output dropped.
        starts = [i for i, m in enumerate(trimmed) if m.role == "user" and not m.tool_results]
        assert starts == [0]
        assert all(dropped)
