"""Sub-agents with the scripted provider: events, usage, budgets, cancellation, depth, tool sets."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from bot.agent.agent import Agent
from bot.agent.budget import Budgets
from bot.agent.cancel import CancelToken
from bot.agent.errors import ErrorKind
from bot.agent.events import (
    MAIN,
    AgentMeta,
    DoneEvent,
    ErrorEvent,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from bot.agent.messages import ModelRequest, ModelResponse, Usage
from bot.agent.subagents import Lineage, SubAgentScope
from fakes.scripted_provider import ScriptedProvider, call, last_results, reply, tools
from tests.unit.agent.helpers import FakeClock, Gate, NoInput, Recorder, RecordingSleep, context
from tools.catalog import default_registry
from tools.context import ToolContext
from tools.engine_tools.explore import TOOLS as EXPLORE
from tools.errors import ToolError
from tools.files import TOOLS as FILE_TOOLS
from tools.registry import Tool, ToolRegistry
from tools.subagent_port import (
    READ_ONLY_TOOLS,
    WRITING_TOOLS,
    SubAgentReport,
    SubAgents,
    SubAgentTask,
)


class Ask(BaseModel):
    prompt: str = "go"
    tools: list[str] | None = None


class Spawner:
    """A tool that starts sub-agents as told, remembering what it saw."""

    def __init__(
        self, *, parallel: int = 1, background: bool = False, started: threading.Event | None = None
    ) -> None:
        self.parallel = parallel
        self.background = background
        self.started = started
        self.reports: list[SubAgentReport] = []
        self.scope: SubAgents | None = None
        self.depth = -1
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def run(self, ctx: ToolContext, params: Ask) -> str:
        assert ctx.subagents is not None
        self.scope, self.depth = ctx.subagents, ctx.subagents.depth
        wanted = tuple(params.tools) if params.tools is not None else None
        task = SubAgentTask("helper", "You help.", params.prompt, tools=wanted)
        if self.background:  # starts one and returns without waiting: the scope must stop it
            self.thread = threading.Thread(target=self._keep, args=(ctx.subagents, task))
            self.thread.start()
            assert self.started is not None
            assert self.started.wait(10)  # the sub-agent is in its model call
            return "started"
        threads = [
            threading.Thread(target=self._keep, args=(ctx.subagents, task))
            for _ in range(self.parallel)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return " | ".join(r.text or f"{r.error_kind}: {r.error}" for r in self.reports)

    def _keep(self, scope: SubAgents, task: SubAgentTask) -> None:
        try:
            self.reports.append(scope.run(task))
        except BaseException as exc:
            self.error = exc


def agent(
    provider: ScriptedProvider,
    extra: list[Tool[Any]] = (),  # type: ignore[assignment]
    *,
    budgets: Budgets | None = None,
    gate: Gate | None = None,
) -> Agent:
    clock = FakeClock()
    registry: list[Tool[Any]] = [*FILE_TOOLS, *EXPLORE, *extra]
    if gate is not None:
        registry.append(Tool("gate", "Wait for cancel.", NoInput, gate.run))
    return Agent(
        provider,
        ToolRegistry(registry),
        system_prompt="main",
        budgets=budgets,
        clock=clock,
        sleep=RecordingSleep(clock),
        poll=0.02,
    )


def explore_turn() -> ScriptedProvider:
    return ScriptedProvider(
        [
            tools(call("explore", "e1", question="where is app?"), usage=Usage(100, 10)),
            tools(
                call("file_list", "s1", glob_pattern="*.txt"), text="looking", usage=Usage(50, 5)
            ),
            reply("app is in a.txt", usage=Usage(60, 6)),
            reply("done", usage=Usage(200, 20)),
        ]
    )


def test_explore_returns_the_sub_agents_answer(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("app\n")
    provider = explore_turn()
    result = agent(provider).run_turn([], "find app", context(tmp_path))

    assert result.ok, result.error
    assert last_results(provider.requests[3]) == {"e1": ("app is in a.txt", False)}
    sub_request = provider.requests[1]
    assert sub_request.system.startswith("You are a careful research assistant")
    assert sub_request.messages[0].text == "where is app?"
    # Its own conversation: the parent's is not shown to it.
    assert len(sub_request.messages) == 1


def test_sub_agent_events_are_mirrored_in_order_with_tags(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("app\n")
    recorder = Recorder()
    agent(explore_turn()).run_turn([], "find app", context(tmp_path), observer=recorder)

    sub = AgentMeta("explore-1", 1)
    seen = [
        (type(e).__name__, e.agent, getattr(getattr(e, "call", None), "name", ""))
        for e in recorder.events
    ]
    assert seen == [
        ("UsageEvent", MAIN, ""),
        ("ToolCallEvent", MAIN, "explore"),
        ("UsageEvent", sub, ""),
        ("TextEvent", sub, ""),
        ("ToolCallEvent", sub, "explore: file_list"),
        ("ToolResultEvent", sub, "explore: file_list"),
        ("UsageEvent", sub, ""),
        ("TextEvent", sub, ""),
        ("DoneEvent", sub, ""),
        ("ToolResultEvent", MAIN, "explore"),
        ("UsageEvent", MAIN, ""),
        ("TextEvent", MAIN, ""),
        ("DoneEvent", MAIN, ""),
    ]


def test_usage_adds_up_to_the_parents_turn(tmp_path: Path) -> None:
    recorder = Recorder()
    result = agent(explore_turn()).run_turn([], "go", context(tmp_path), observer=recorder)

    assert result.usage == Usage(410, 41)
    assert result.steps == 4
    assert result.calls == (Usage(100, 10), Usage(50, 5), Usage(60, 6), Usage(200, 20))
    # The parent's running total includes the sub-agent's calls made before its next call.
    main_usage = [e for e in recorder.of(UsageEvent) if e.agent is MAIN]
    assert [e.turn for e in main_usage] == [Usage(100, 10), Usage(410, 41)]
    done = [e for e in recorder.of(DoneEvent) if e.agent.depth == 1]
    assert done[0].usage == Usage(110, 11)


def test_a_budget_used_up_inside_a_sub_agent_stops_it_and_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            tools(call("explore", "e1", question="q")),
            tools(call("file_list", "s1", glob_pattern="*")),
            tools(call("file_list", "s2", glob_pattern="*")),
            reply("never reached"),
        ]
    )
    recorder = Recorder()
    result = agent(provider, budgets=Budgets(max_steps=3)).run_turn(
        [], "go", context(tmp_path), observer=recorder
    )

    assert result.error is not None
    assert result.error.kind is ErrorKind.BUDGET
    assert result.steps == 3
    sub_errors = [e for e in recorder.of(ErrorEvent) if e.agent.depth == 1]
    assert [e.error.kind for e in sub_errors] == [ErrorKind.BUDGET]
    explore_result = next(e for e in recorder.of(ToolResultEvent) if e.call.name == "explore")
    assert explore_result.result.is_error
    assert "explore-1 stopped early: budget: step budget used up: 3 model calls of max 3" in (
        explore_result.result.content
    )
    assert provider.remaining == 1


def test_a_sub_agents_own_step_limit_leaves_the_parent_going(tmp_path: Path) -> None:
    steps = [tools(call("file_list", f"s{i}", glob_pattern="*")) for i in range(20)]
    provider = ScriptedProvider(
        [tools(call("explore", "e1", question="q")), *steps, reply("I will look myself")]
    )
    result = agent(provider).run_turn([], "go", context(tmp_path))

    assert result.ok
    assert result.text == "I will look myself"
    content, is_error = last_results(provider.requests[-1])["e1"]
    assert is_error
    assert "explore-1 stopped early: budget: this sub-agent's step limit is reached" in content


def test_cancellation_reaches_a_sub_agent_blocked_in_a_tool(tmp_path: Path) -> None:
    entered = threading.Event()
    saw: list[bool] = []

    def slow_read(ctx: ToolContext, params: NoInput) -> str:
        entered.set()
        for _ in range(500):
            if ctx.cancelled():
                saw.append(True)
                return "stopped"
            threading.Event().wait(0.02)
        return "finished"

    # A read-only name, so the sub-agent is offered it.
    slow = Tool("git_log", "Slow history.", NoInput, slow_read)
    provider = ScriptedProvider(
        [tools(call("explore", "e1", question="q")), tools(call("git_log", "g1")), reply("x")]
    )
    a = agent(provider, [slow])
    token = CancelToken()
    recorder = Recorder()
    out: list[Any] = []
    worker = threading.Thread(
        target=lambda: out.append(
            a.run_turn([], "go", context(tmp_path), cancel=token, observer=recorder)
        )
    )
    worker.start()
    assert entered.wait(10)
    token.cancel("stop now")
    worker.join(10)

    result = out[0]
    assert saw == [True]
    assert result.error is not None
    assert result.error.kind is ErrorKind.CANCELLED
    sub_errors = [e for e in recorder.of(ErrorEvent) if e.agent.depth == 1]
    assert [e.error.kind for e in sub_errors] == [ErrorKind.CANCELLED]


def test_sub_agents_stop_when_the_tool_call_returns(tmp_path: Path) -> None:
    entered, release = threading.Event(), threading.Event()

    def blocking(request: ModelRequest) -> ModelResponse:
        entered.set()
        release.wait(10)
        return reply("late")

    spawner = Spawner(background=True, started=entered)
    provider = ScriptedProvider([tools(call("spawn", "p1")), blocking, reply("main done")])
    a = agent(provider, [Tool("spawn", "Start a helper.", Ask, spawner.run)])
    result = a.run_turn([], "go", context(tmp_path))
    assert spawner.thread is not None
    spawner.thread.join(10)
    release.set()

    assert result.ok
    assert [r.error_kind for r in spawner.reports] == ["cancelled"]
    assert "has returned" in spawner.reports[0].error
    # A scope kept past its call refuses to start another sub-agent.
    assert spawner.scope is not None
    with pytest.raises(ToolError, match="has returned"):
        spawner.scope.run(SubAgentTask("late", "p", "q"))


def test_several_sub_agents_run_at_once(tmp_path: Path) -> None:
    barrier = threading.Barrier(3, timeout=10)

    def answer(request: ModelRequest) -> ModelResponse:
        barrier.wait()  # all three are in a model call at the same time
        return reply("answer", usage=Usage(10, 1))

    spawner = Spawner(parallel=3)
    provider = ScriptedProvider(
        [tools(call("spawn", "p1")), answer, answer, answer, reply("done", usage=Usage(1, 1))]
    )
    recorder = Recorder()
    a = agent(provider, [Tool("spawn", "Start helpers.", Ask, spawner.run)])
    result = a.run_turn([], "go", context(tmp_path), observer=recorder)

    assert result.ok
    assert sorted(r.id for r in spawner.reports) == ["helper-1", "helper-2", "helper-3"]
    assert result.usage == Usage(10, 5) + Usage(30, 3) + Usage(1, 1)
    # Each sub-agent's events arrive in its own order: usage, text, done.
    for report in spawner.reports:
        kinds = [type(e).__name__ for e in recorder.events if e.agent.id == report.id]
        assert kinds == ["UsageEvent", "TextEvent", "DoneEvent"]


def test_depth_is_limited_to_two(tmp_path: Path) -> None:
    spawner = Spawner()
    provider = ScriptedProvider(
        [
            tools(call("explore", "e1", question="one")),  # main -> explore-1 (depth 1)
            tools(call("explore", "e2", question="two")),  # explore-1 -> explore-2 (depth 2)
            reply("deepest answer"),
            reply("middle answer"),
            reply("top"),
        ]
    )
    a = agent(provider, [Tool("spawn", "x", Ask, spawner.run)])
    result = a.run_turn([], "go", context(tmp_path))

    assert result.ok
    offered = [[s.name for s in r.tools] for r in provider.requests]
    assert "explore" in offered[1]  # depth 1 may explore
    assert "explore" not in offered[2]  # depth 2 may not
    assert last_results(provider.requests[3]) == {"e2": ("deepest answer", False)}


def test_a_scope_at_the_depth_limit_refuses_with_a_tool_error(tmp_path: Path) -> None:
    a = agent(ScriptedProvider())
    scope = _scope_at_depth(a, tmp_path, 2)
    with pytest.raises(ToolError, match="nest at most 2 deep and this one would be depth 3"):
        scope.run(SubAgentTask("x", "p", "q"))


def test_tools_outside_the_read_only_set_are_unknown_to_a_sub_agent(tmp_path: Path) -> None:
    spawner = Spawner()
    provider = ScriptedProvider(
        [tools(call("spawn", "p1")), tools(call("spawn", "p2")), reply("d1"), reply("top")]
    )
    result = agent(provider, [Tool("spawn", "x", Ask, spawner.run)]).run_turn(
        [], "go", context(tmp_path)
    )
    assert result.ok
    content, is_error = last_results(provider.requests[2])["p2"]
    assert is_error
    assert "unknown tool 'spawn'" in content


def _scope_at_depth(a: Agent, tmp_path: Path, depth: int) -> SubAgents:
    lineage = Lineage(
        provider=a.provider,
        registry=a.registry,
        settings=a.settings,
        budget=a.new_budget(),
        cancel=CancelToken(),
        observer=lambda e: None,
        meta=AgentMeta("deep", depth),
    )
    return SubAgentScope(lineage, context(tmp_path))


def test_sub_agents_are_never_offered_a_writing_tool(tmp_path: Path) -> None:
    spawner = Spawner()
    asked = ["file_write", "file_edit", "file_delete", "file_read", "spawn", "jb_install"]
    provider = ScriptedProvider([tools(call("spawn", "p1", tools=asked)), reply("a"), reply("b")])
    read_only_mcp = Tool("mcp__ops__alerts", "Alerts.", NoInput, lambda c, p: "", read_only=True)
    writing_mcp = Tool("mcp__ops__silence", "Silence.", NoInput, lambda c, p: "")
    a = agent(provider, [Tool("spawn", "x", Ask, spawner.run), read_only_mcp, writing_mcp])
    a.run_turn([], "go", context(tmp_path))

    assert [s.name for s in provider.requests[1].tools] == ["file_read", "mcp__ops__alerts"]


def test_the_read_only_sets_cover_the_catalogue() -> None:
    names = set(default_registry().names())
    assert READ_ONLY_TOOLS.isdisjoint(WRITING_TOOLS)
    assert names <= READ_ONLY_TOOLS | WRITING_TOOLS, names - (READ_ONLY_TOOLS | WRITING_TOOLS)
    assert {"file_write", "file_edit", "file_delete", "tanka_format_jsonnet"} <= WRITING_TOOLS
    assert {n for n in names if n.startswith("jb_")} <= WRITING_TOOLS
    assert "explore" in names


def test_explore_without_sub_agents_is_a_clear_tool_error(tmp_path: Path) -> None:
    outcome = ToolRegistry(EXPLORE).execute(context(tmp_path), "explore", {"question": "q"})
    assert outcome.is_error
    assert "explore is not available here" in outcome.content


def test_a_sub_agent_may_use_another_model_only_with_a_provider_factory(tmp_path: Path) -> None:
    other = ScriptedProvider([reply("from the other model")], model="other-1")
    a = agent(ScriptedProvider())
    scope = a.subagents(context(tmp_path), budget=a.new_budget())
    with pytest.raises(ToolError, match="not available to sub-agents"):
        scope.run(SubAgentTask("x", "p", "q", model="other-1"))

    a.providers = lambda model: other
    scope = a.subagents(context(tmp_path), budget=a.new_budget())
    report = scope.run(SubAgentTask("x", "p", "q", model="other-1"))
    assert report.text == "from the other model"


def test_text_and_done_events_of_sub_agents_keep_their_tags(tmp_path: Path) -> None:
    recorder = Recorder()
    a = agent(ScriptedProvider([reply("hi")]))
    scope = a.subagents(context(tmp_path), budget=a.new_budget(), observer=recorder)
    report = scope.run(SubAgentTask("reviewer", "p", "q"))

    assert report.id == "reviewer-1"
    assert [type(e) for e in recorder.events] == [UsageEvent, TextEvent, DoneEvent]
    assert {e.agent for e in recorder.events} == {AgentMeta("reviewer-1", 1)}
    assert not recorder.of(ToolCallEvent)
