"""The agent loop against the scripted provider: steps, tools, results fed back, events, usage."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.agent.conversation import Conversation
from bot.agent.events import (
    DoneEvent,
    Event,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from bot.agent.messages import Message, StopReason, Usage
from fakes.scripted_provider import ScriptedProvider, call, last_results, reply, tools
from tests.unit.agent.helpers import Recorder, assert_well_formed, context, make_agent
from tools.files import TOOLS as FILE_TOOLS
from tools.registry import ToolRegistry


def test_plain_answer_is_one_step(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply("hello", usage=Usage(100, 20))])
    result = make_agent(provider).run_turn([], "hi", context(tmp_path))

    assert result.ok
    assert result.text == "hello"
    assert result.stop_reason is StopReason.COMPLETE
    assert result.steps == 1
    assert result.usage == Usage(100, 20)
    assert [m.role for m in result.messages] == ["user", "assistant"]
    request = provider.requests[0]
    assert request.system == "You are a test."
    assert [s.name for s in request.tools] == ["echo", "refuse", "crash"]
    assert request.messages[-1] == Message.user("hi")


def test_multi_step_feeds_results_back(tmp_path: Path) -> None:
    first = call("echo", "c1", text="ab", times=2)
    second = call("echo", "c2", text="z")
    provider = ScriptedProvider(
        [tools(first, text="looking"), tools(second), reply("done: abab z")]
    )
    result = make_agent(provider).run_turn([], "go", context(tmp_path))

    assert result.ok
    assert result.text == "done: abab z"
    assert result.steps == 3
    assert result.tool_calls == 2
    assert last_results(provider.requests[1]) == {"c1": ("abab", False)}
    assert last_results(provider.requests[2]) == {"c2": ("z", False)}
    # Each request carries the whole conversation so far.
    assert len(provider.requests[2].messages) == 5
    assert_well_formed(result.messages)


def test_parallel_calls_run_in_order_and_return_in_one_message(tmp_path: Path) -> None:
    calls = [call("echo", f"p{i}", text=str(i)) for i in range(3)]
    provider = ScriptedProvider([tools(*calls), reply("ok")])
    recorder = Recorder()
    result = make_agent(provider).run_turn([], "go", context(tmp_path), observer=recorder)

    results_message = result.messages[2]
    assert [r.content for r in results_message.tool_results] == ["0", "1", "2"]
    assert [e.call.id for e in recorder.of(ToolCallEvent)] == ["p0", "p1", "p2"]
    assert_well_formed(result.messages)


def test_bad_calls_become_error_results_the_model_can_read(tmp_path: Path) -> None:
    bad_args = call("echo", "a", times="many")
    unknown = call("kubectl_apply", "b")
    refused = call("refuse", "c")
    crashed = call("crash", "d")
    provider = ScriptedProvider([tools(bad_args, unknown, refused, crashed), reply("sorry")])
    result = make_agent(provider).run_turn([], "go", context(tmp_path))

    assert result.ok
    sent = last_results(provider.requests[1])
    content, is_error = sent["a"]
    assert is_error
    assert "invalid arguments for echo" in content
    assert "text: Field required" in content
    assert "times:" in content
    assert sent["b"][1]
    assert "unknown tool 'kubectl_apply'" in sent["b"][0]
    assert sent["b"][0].endswith("crash, echo, refuse")
    assert sent["c"] == ("refuse failed: refused on purpose", True)
    assert sent["d"][1]
    assert "RuntimeError: boom" in sent["d"][0]


def test_max_tokens_without_tool_calls_ends_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply("cut sh", stop=StopReason.MAX_TOKENS)])
    result = make_agent(provider).run_turn([], "go", context(tmp_path))
    assert result.ok
    assert result.stop_reason is StopReason.MAX_TOKENS
    assert result.text == "cut sh"


def test_refusal_ends_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply("I can't help with that", stop=StopReason.REFUSAL)])
    result = make_agent(provider).run_turn([], "go", context(tmp_path))
    assert result.ok
    assert result.stop_reason is StopReason.REFUSAL


def test_events_arrive_in_order_with_usage(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [tools(call("echo", "e1", text="x"), text="let me", usage=Usage(7, 3)), reply("fin")]
    )
    recorder = Recorder()
    make_agent(provider).run_turn([], "go", context(tmp_path), observer=recorder)

    kinds = [type(e).__name__ for e in recorder.events]
    assert kinds == [
        "UsageEvent",
        "TextEvent",
        "ToolCallEvent",
        "ToolResultEvent",
        "UsageEvent",
        "TextEvent",
        "DoneEvent",
    ]
    usage = recorder.of(UsageEvent)
    assert (usage[0].step, usage[0].call, usage[0].turn) == (1, Usage(7, 3), Usage(7, 3))
    assert (usage[1].step, usage[1].turn) == (2, Usage(17, 8))
    assert recorder.of(TextEvent)[0].text == "let me"
    assert recorder.of(ToolResultEvent)[0].result.content == "x"
    done = recorder.of(DoneEvent)[0]
    assert (done.text, done.steps, done.usage) == ("fin", 2, Usage(17, 8))


def test_an_observer_that_raises_does_not_break_the_turn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(event: Event) -> None:
        raise ValueError("display broke")

    provider = ScriptedProvider([tools(call("echo", text="x")), reply("fine")])
    result = make_agent(provider).run_turn([], "go", context(tmp_path), observer=broken)
    assert result.ok
    assert result.text == "fine"
    assert "turn observer failed" in caplog.text


def test_usage_per_call_turn_and_conversation(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            tools(call("echo", text="x"), usage=Usage(100, 10, cache_read_tokens=50)),
            reply("a", usage=Usage(120, 5, cache_write_tokens=30)),
            reply("b", usage=Usage(200, 1)),
        ]
    )
    agent = make_agent(provider)
    conversation = Conversation()
    first = agent.run(conversation, "one", context(tmp_path))
    assert first.calls == (Usage(100, 10, 50, 0), Usage(120, 5, 0, 30))
    assert first.usage == Usage(220, 15, 50, 30)
    assert first.usage.total == 315
    second = agent.run(conversation, "two", context(tmp_path))
    assert second.usage == Usage(200, 1)
    assert conversation.usage == Usage(420, 16, 50, 30)
    assert conversation.turns == 2
    # The second turn was sent the first turn's messages.
    assert provider.requests[2].messages[:4] == conversation.history[:4]
    assert len(conversation.history) == 6

    conversation.clear()
    assert not conversation.history
    assert conversation.usage.total == 516


def test_real_file_tools_edit_the_checkout(tmp_path: Path) -> None:
    (tmp_path / "main.jsonnet").write_text("{ replicas: 1 }\n")
    edit = call("file_edit", "e", path="main.jsonnet", old_text="1", new_text="3")
    read = call("file_read", "r", path="main.jsonnet")
    provider = ScriptedProvider([tools(edit), tools(read), reply("scaled to 3")])
    agent = make_agent(provider)
    agent.registry = ToolRegistry(FILE_TOOLS)
    result = agent.run_turn([], "scale", context(tmp_path))

    assert result.ok
    assert (tmp_path / "main.jsonnet").read_text() == "{ replicas: 3 }\n"
    assert "replicas: 3" in last_results(provider.requests[2])["r"][0]
