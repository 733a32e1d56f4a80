"""`explore(question)`: a read-only sub-agent answers a question about the repository.

The main agent keeps its own context small: the sub-agent reads, searches and renders as much as
it needs (with the read-only tools of tools/subagent_port.py and read-only MCP tools) and only its
short answer comes back as the tool result. Its progress shows as "explore: <tool> ..." and its
tokens count in the turn (bot.agent.subagents).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import Tool
from tools.subagent_port import SubAgentTask

# An exploration that needs more model calls than this should be split into narrower questions.
EXPLORE_MAX_STEPS = 20

EXPLORE_PROMPT = """\
You are a careful research assistant for a senior SRE who works on a Tanka/Jsonnet Kubernetes \
repository. You answer one question about the repository using read-only tools: you cannot \
change files, and you never need to.

How to work:
- Start from the layout: tanka_find_environments lists environments; file_list and file_search \
find files and text; file_read reads them; git_log shows history; tanka_importers tells which \
environments use a file; tanka_show renders an environment.
- Prefer searching to reading whole directories; read only what the question needs.
- Other tools (named mcp__<server>__<tool>) reach systems outside the repository, such as \
monitoring; use them when the question is about those systems.
- Never quote the values of Kubernetes Secrets or any credential.

Answer in at most 15 lines: the facts found, each with the file path (and line or environment) it \
comes from, and say plainly what you could not find. No preamble.
"""


class ExploreInput(BaseModel):
    question: str = Field(
        min_length=1,
        description="One self-contained question about the repository, e.g. 'Which environments "
        "import lib/grafana.libsonnet, and which replica count does each set?'",
    )


def explore(ctx: ToolContext, params: ExploreInput) -> str:
    if ctx.subagents is None:
        raise ToolError("explore is not available here; use file_search and file_read instead")
    task = SubAgentTask(
        label="explore",
        system_prompt=EXPLORE_PROMPT,
        prompt=params.question,
        max_steps=EXPLORE_MAX_STEPS,
    )
    report = ctx.subagents.run(task)
    if not report.ok:
        raise ToolError(f"{report.id} stopped early: {report.error_kind}: {report.error}")
    return report.text.strip() or f"{report.id} gave no answer; ask a narrower question"


TOOLS: list[Tool[Any]] = [
    Tool(
        "explore",
        "Hand a question about the repository to a read-only helper that searches, reads and "
        "renders as much as it needs and returns a short answer with file paths. Use it for "
        "questions that would take many file reads (where is X defined, which environments use "
        "Y, how are Z usually written) to keep your own context small. It cannot edit files.",
        ExploreInput,
        explore,
    ),
]
