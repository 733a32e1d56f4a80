"""Sub-agents as tools see them, and the read-only tool sets they are limited to.

A tool that wants a second model working on part of its job (explore, the reviewer) asks the
`SubAgents` value in its `ToolContext` for one; the agent loop (bot.agent.subagents) provides it
for the duration of that one tool call. tools/ defines the port so tools never import bot/.

What a sub-agent may use is decided here, once, by name: a sub-agent is never offered a tool that
writes, whatever its caller asks for. MCP tools (`mcp__<server>__<tool>`) count as read-only only
when their server annotated them `readOnlyHint: true` (`Tool.read_only`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

# How deep sub-agents nest: the main agent is depth 0, its sub-agents 1, theirs 2.
MAX_DEPTH = 2

# Tools sub-agents never get: those that write, and the contract's whole family of them (file_*
# writers, tanka_format_jsonnet, jb_*), even where a member only reads today. A new built-in tool
# must be listed here or in READ_ONLY_TOOLS (tests/unit/tools/test_subagent_sets.py checks).
WRITING_TOOLS = frozenset(
    {"file_write", "file_edit", "file_delete", "tanka_format_jsonnet", "jb_init", "jb_install",
     "jb_update", "jb_list"}
)  # fmt: skip

READ_ONLY_TOOLS = frozenset(
    {"file_read", "file_list", "file_search", "git_log", "git_status", "git_diff",
     "tanka_find_environments", "tanka_importers", "tanka_show", "tanka_eval", "tanka_diff",
     "tanka_validate_jsonnet", "tanka_check", "github_pr_list", "explore"}
)  # fmt: skip

# explore's tools (CONTRACT.md, "Sub-agents and external MCP tools"), plus read-only MCP tools.
EXPLORE_TOOLS = (
    "file_read", "file_list", "file_search", "git_log", "git_diff", "tanka_find_environments",
    "tanka_importers", "tanka_show", "tanka_eval", "explore",
)  # fmt: skip

# The reviewer also checks the change: the rendered diff, schemas and policies, validation.
REVIEW_TOOLS = (*EXPLORE_TOOLS, "git_status", "tanka_diff", "tanka_check", "tanka_validate_jsonnet")

MCP_PREFIX = "mcp__"


def is_read_only(name: str, *, annotated_read_only: bool = False) -> bool:
    """Whether a sub-agent may be offered the tool called `name`."""
    if name in WRITING_TOOLS:
        return False
    if name.startswith(MCP_PREFIX):
        return annotated_read_only
    return name in READ_ONLY_TOOLS


def allowed_names(requested: Iterable[str]) -> tuple[str, ...]:
    """`requested` without the built-in tools that write (MCP tools are judged by the registry)."""
    return tuple(n for n in requested if n not in WRITING_TOOLS)


@dataclass(frozen=True, slots=True)
class SubAgentTask:
    """What a tool asks a sub-agent to do."""

    label: str  # shown in progress lines ("explore: file_search ..."): [a-z_-]+
    system_prompt: str
    prompt: str
    # Tool names wanted (read-only ones only are offered); None: EXPLORE_TOOLS. Read-only MCP
    # tools are offered whenever `mcp` is True.
    tools: tuple[str, ...] | None = None
    mcp: bool = True
    model: str | None = None  # None: the parent's model
    max_steps: int | None = None  # a tighter step budget than the turn's, if wanted


@dataclass(frozen=True, slots=True)
class SubAgentReport:
    """How a sub-agent's run ended. Its token use is already counted in the parent's turn."""

    id: str  # unique within the turn, e.g. "explore-1"
    depth: int
    text: str  # its final answer; empty when it stopped early
    error: str = ""  # why it stopped early ("" when it finished)
    error_kind: str = ""  # bot.agent.errors.ErrorKind value: budget, timeout, cancelled, ...
    steps: int = 0
    tool_calls: int = 0
    tokens: int = 0

    @property
    def ok(self) -> bool:
        return not self.error


class SubAgents(Protocol):
    """Creates sub-agents while one tool call runs; refuses once it has returned."""

    @property
    def depth(self) -> int:
        """The depth of the agent whose tool is running (0: the main agent)."""
        ...

    def run(self, task: SubAgentTask) -> SubAgentReport:
        """Run a sub-agent to the end (thread-safe: several may run at once).

        Raises ToolError when the depth limit is reached or the tool call has returned.
        """
        ...
