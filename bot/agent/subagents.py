"""Sub-agents: a second model run, with its own prompt, tools and model, inside one tool call.

The loop gives every tool call a `SubAgentScope` (as `ctx.subagents`); a tool calls
`ctx.subagents.run(SubAgentTask(...))` and gets a `SubAgentReport`. A sub-agent:

- exists only while the call runs: when the call returns, or the turn is cancelled, the scope
  cancels every sub-agent it started, and a scope that has returned refuses to start another;
- nests at most `MAX_DEPTH` deep (the main agent is depth 0), refused with a ToolError;
- is offered read-only tools only (tools/subagent_port.py), whatever the task asks for;
- reports its events to the parent's observer in order, tagged with its id and depth, its tool
  calls named "<label>: <tool>" so every front end shows where a call ran;
- counts each model call in its parent's budget (and up to the turn's): tokens and steps add up,
  and a budget used up anywhere stops it with kind BUDGET, which the parent sees in the report.

Several sub-agents may run at once (from threads the tool starts); their events reach the
observer one at a time, in each one's own order.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any, Protocol

from bot.agent.budget import Budgets, TurnBudget
from bot.agent.cancel import CancelToken
from bot.agent.events import MAIN, AgentMeta, Event, Observer, ToolCallEvent, ToolResultEvent
from bot.agent.messages import LLMProvider, Message
from bot.agent.turn import ProviderFactory, ScopeFactory, Turn, TurnSettings
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import Tool, ToolRegistry
from tools.subagent_port import (
    EXPLORE_TOOLS,
    MAX_DEPTH,
    MCP_PREFIX,
    SubAgentReport,
    SubAgentTask,
    allowed_names,
    is_read_only,
)

CLOSED_REASON = "the tool call that started this sub-agent has returned"


class Parent(Protocol):
    """What a sub-agent inherits: a running Turn, or a `Lineage` outside any tool call."""

    @property
    def provider(self) -> LLMProvider: ...

    @property
    def registry(self) -> ToolRegistry: ...

    @property
    def settings(self) -> TurnSettings: ...

    @property
    def budget(self) -> TurnBudget: ...

    @property
    def cancel(self) -> CancelToken: ...

    @property
    def observer(self) -> Observer: ...

    @property
    def meta(self) -> AgentMeta: ...

    @property
    def open_scope(self) -> ScopeFactory | None: ...

    @property
    def providers(self) -> ProviderFactory | None: ...


@dataclass
class Lineage:
    """A parent for sub-agents started outside a tool call (the reviewer, after a turn)."""

    provider: LLMProvider
    registry: ToolRegistry
    settings: TurnSettings
    budget: TurnBudget
    cancel: CancelToken
    observer: Observer
    meta: AgentMeta = MAIN
    open_scope: ScopeFactory | None = None
    providers: ProviderFactory | None = None


def mirror(observer: Observer, meta: AgentMeta, label: str) -> Observer:
    """The observer a sub-agent's turn reports to: tags its events and passes them up."""

    def forward(event: Event) -> None:
        if event.agent is MAIN:  # the sub-agent's own event (deeper ones are tagged already)
            event = replace(event, agent=meta)
        if isinstance(event, ToolCallEvent | ToolResultEvent):
            event = replace(event, call=replace(event.call, name=f"{label}: {event.call.name}"))
        observer(event)

    return forward


class SerialObserver:
    """Delivers events one at a time: sub-agents running at once share the turn's observer."""

    def __init__(self, observer: Observer) -> None:
        self._observer = observer
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self._lock:
            self._observer(event)


def subagent_registry(registry: ToolRegistry, task: SubAgentTask, depth: int) -> ToolRegistry:
    """The parent's tools a sub-agent at `depth` may use: read-only, as the task asks."""
    wanted = set(allowed_names(task.tools if task.tools is not None else EXPLORE_TOOLS))
    if depth >= MAX_DEPTH:
        wanted.discard("explore")  # its sub-agent would be one level too deep

    def keep(tool: Tool[Any]) -> bool:
        if tool.name.startswith(MCP_PREFIX):
            return task.mcp and is_read_only(tool.name, annotated_read_only=tool.read_only)
        return tool.name in wanted and is_read_only(tool.name)

    return registry.filtered(keep)


class SubAgentScope:
    """`ctx.subagents` during one tool call of `parent` (tools.subagent_port.SubAgents)."""

    def __init__(self, parent: Parent, ctx: ToolContext) -> None:
        self._parent = parent
        self._ctx = ctx
        self._lock = threading.Lock()
        self._open = True
        self._running: list[CancelToken] = []

    @property
    def depth(self) -> int:
        return self._parent.meta.depth

    def run(self, task: SubAgentTask) -> SubAgentReport:
        parent = self._parent
        depth = parent.meta.depth + 1
        if depth > MAX_DEPTH:
            raise ToolError(
                f"sub-agents nest at most {MAX_DEPTH} deep and this one would be depth {depth}; "
                "answer from what you have, or use the read-only tools directly"
            )
        with self._lock:
            if not self._open:
                raise ToolError(f"cannot start a sub-agent: {CLOSED_REASON}")
            token = parent.cancel.child()
            self._running.append(token)
        try:
            return self._run(task, depth, token)
        finally:
            with self._lock:
                self._running.remove(token)
            parent.cancel.release(token)

    def close(self) -> None:
        """Stop every sub-agent still running and refuse new ones."""
        with self._lock:
            self._open = False
            running = list(self._running)
        for token in running:
            token.cancel(CLOSED_REASON)

    def _run(self, task: SubAgentTask, depth: int, token: CancelToken) -> SubAgentReport:
        parent = self._parent
        meta = AgentMeta(f"{task.label}-{next(parent.budget.ids)}", depth)
        provider = self._provider(task)
        settings = parent.settings
        base = settings.budgets
        budgets = Budgets(
            max_steps=min(task.max_steps or base.max_steps, base.max_steps),
            max_tokens=base.max_tokens,
            turn_timeout=base.turn_timeout,
            call_timeout_cap=base.call_timeout_cap,
        )
        budget = TurnBudget(budgets, settings.clock, parent=parent.budget)
        turn = Turn(
            provider,
            subagent_registry(parent.registry, task, depth),
            replace(settings, system_prompt=task.system_prompt, budgets=budgets),
            history=(),
            prompt=Message.user(task.prompt),
            ctx=replace(self._ctx, subagents=None),
            observer=mirror(parent.observer, meta, task.label),
            cancel=token,
            budget=budget,
            meta=meta,
            open_scope=parent.open_scope,
            providers=parent.providers,
        )
        outcome = turn.run()
        error = outcome.error
        return SubAgentReport(
            id=meta.id,
            depth=depth,
            text=outcome.text,
            error=error.message if error is not None else "",
            error_kind=error.kind.value if error is not None else "",
            steps=budget.steps,
            tool_calls=turn.tools_run,
            tokens=budget.usage.total,
        )

    def _provider(self, task: SubAgentTask) -> LLMProvider:
        parent = self._parent
        if task.model is None or task.model == parent.provider.model:
            return parent.provider
        if parent.providers is None:
            raise ToolError(
                f"model {task.model!r} is not available to sub-agents here; leave model unset "
                "to use the parent's"
            )
        return parent.providers(task.model)


def open_scope(parent: Turn) -> SubAgentScope:
    """The loop's `ScopeFactory`: one scope per tool call, run in that call's context."""
    return SubAgentScope(parent, parent.ctx)
