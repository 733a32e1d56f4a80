"""`github_pr_list`: the repository's open pull requests, read-only.

The agent uses it to see work already in flight (another PR touching the same environment, or
this thread's own PR). The list comes from the PullRequestSource the bot injects into the
ToolContext; the tool never holds a token and cannot write anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from tools.context import PullRequestInfo, ToolContext
from tools.errors import ToolError
from tools.registry import Tool

NOT_CONFIGURED = (
    "GitHub is not configured, so open pull requests cannot be listed. An operator can set "
    "GITHUB_TOKEN (or GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY) and "
    "TANKA_BOT_GITHUB_REPO=owner/name (or a GitHub TANKA_BOT_REPO_URL). "
    "Carry on without this list."
)
TITLE_CHARS = 120


class PrListInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


def format_pull_requests(pulls: Sequence[PullRequestInfo]) -> str:
    """One line per PR: number, title, branches, author, draft flag, last update, URL."""
    if not pulls:
        return "No open pull requests."
    lines = [f"{len(pulls)} open pull request(s), most recently updated first:"]
    for pr in pulls:
        title = " ".join(pr.title.split())
        if len(title) > TITLE_CHARS:
            title = title[: TITLE_CHARS - 1] + "\u2026"
        details = [f"{pr.head} -> {pr.base}"]
        if pr.author:
            details.append(f"by {pr.author}")
        if pr.draft:
            details.append("draft")
        if pr.updated_at:
            details.append(f"updated {pr.updated_at}")
        lines.append(f"#{pr.number} {title} ({', '.join(details)}) {pr.url}")
    return "\n".join(lines)


def github_pr_list(ctx: ToolContext, _params: PrListInput) -> str:
    if ctx.pull_requests is None:
        return NOT_CONFIGURED
    try:
        pulls = ctx.pull_requests.open_pull_requests()
    except Exception as exc:
        # The source's errors are expected (GitHub down, rate limit, bad token) and already say
        # what to fix without secrets; the model only needs to know the list is unavailable.
        raise ToolError(f"could not list open pull requests: {exc}") from None
    return format_pull_requests(pulls)


TOOLS: list[Tool[Any]] = [
    Tool(
        name="github_pr_list",
        description=(
            "List the repository's open pull requests (number, title, head -> base branch, "
            "author, draft, last update, URL). Read-only: use it to spot work already in "
            "flight on the same files or environments. Opening a PR is not a tool: the bot "
            "does it after a person approves the proposal."
        ),
        input_model=PrListInput,
        run=github_pr_list,
    )
]
