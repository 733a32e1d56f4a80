"""What every tool call receives: the checkout it works in and the services it may read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the Tanka engine loads only when a rendered diff is asked for
    from tools.subagent_port import SubAgents
    from tools.tanka.diff.revision import RevisionDiffer

from tools.mask_teacher import nothing_to_teach
from tools.redaction.mask import SecretMask

# Paths the agent may read but never write, unless the settings say otherwise. `.gitattributes`
# is one because it changes what a diff shows: a `-diff` line turns an edit into "Binary files
# differ" (shown diffs use --text anyway, see tools.git).
DEFAULT_PROTECTED_PATHS = (".github/**", ".git/**", "**/.gitattributes")


@dataclass(frozen=True, slots=True)
class PullRequestInfo:
    number: int
    title: str
    head: str
    base: str
    author: str
    url: str
    draft: bool = False
    updated_at: str = ""


class PullRequestSource(Protocol):
    """Read-only view of the repository's open pull requests (bot.github.code_host has one)."""

    def open_pull_requests(self) -> Sequence[PullRequestInfo]: ...


def _never() -> bool:
    return False


@dataclass(frozen=True, slots=True)
class ToolContext:
    # The session's checkout; every path a tool touches is confined to it.
    root: Path
    # Globs (relative to root) the agent may read but never write.
    protected_paths: tuple[str, ...] = DEFAULT_PROTECTED_PATHS
    # The commit the session started from: rendered diffs compare against it.
    base_commit: str | None = None
    pull_requests: PullRequestSource | None = None
    # tanka_check: the Rego policy folder (relative to root) and the Kubernetes schema version
    # (TANKA_BOT_POLICY_DIR / TANKA_BOT_KUBERNETES_VERSION; None: the newest bundled).
    policy_dir: str = "policy"
    kubernetes_version: str | None = None
    # Long tools poll this so a cancelled turn stops promptly.
    cancelled: Callable[[], bool] = field(default=_never)
    # The session's Secret values: renders add to it, and every tool result is masked with it
    # (tools/registry.py). Front ends share it to mask what they show.
    secret_mask: SecretMask = field(default_factory=SecretMask)
    # Called before every tool output is masked: teaches the mask, once, every Secret value the
    # session can render (tools/mask_teacher.py), so the first output is masked as the last.
    teach_mask: Callable[[], None] = field(default=nothing_to_teach)
    # Rendered diffs (tanka_diff). Its caches (base trees, base renders) pay off across calls, so
    # the front end makes one per session or process and uses it for its own proposal diffs too;
    # None: a fresh differ per call, base trees in the system temp directory.
    differ: RevisionDiffer | None = None
    # Set by the agent loop for the duration of one tool call: creates sub-agents (explore, the
    # reviewer). None: this caller runs no sub-agents (a tool that needs one says so).
    subagents: SubAgents | None = None
