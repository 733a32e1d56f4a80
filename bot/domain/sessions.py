"""A Slack thread's session as it is stored: who asked, the conversation, the proposals, the PR.

Stored as JSON (memory or Redis), so any replica can pick a thread up. The checkout itself is not
stored: its patch is (`Session.revision` counts saves), and a replica whose local checkout is
older than the stored revision rebuilds it from the base commit and the patch.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.domain.proposal import Proposal
from bot.domain.thread import ThreadKey
from bot.errors import Bug

TRACE_LIMIT = 200  # tool calls kept per session for /tanka status and the audit of a thread


ANSWERED_KEPT = 200  # far more requests than can wait on the queue for one thread


class SessionCorrupt(Bug, ValueError):
    """A stored session could not be read back; the message names the field."""


class PullRequestRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int
    url: str
    branch: str
    # Marked from GitHub's news (bot.handlers.ci.ended) when an approval reads it: a pull
    # request that is no longer open never gets another push.
    state: Literal["open", "closed", "merged"] = "open"


class TraceEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    tool: str
    ok: bool
    seconds: float


class Session(BaseModel):
    channel: str
    thread_ts: str
    requester: str
    request: str  # the first request: the PR title and branch slug come from it
    created: float
    updated: float
    base_branch: str
    base_commit: str = ""
    branch: str = ""
    state: Literal["idle", "running"] = "idle"
    revision: int = 0  # bumped on every saved patch
    conversation: dict[str, Any] = Field(default_factory=dict)
    proposals: list[Proposal] = Field(default_factory=list)
    pull_request: PullRequestRecord | None = None
    past_pull_requests: list[PullRequestRecord] = Field(default_factory=list)  # merged or closed
    input_tokens: int = 0
    output_tokens: int = 0
    turns: int = 0
    trace: list[TraceEntry] = Field(default_factory=list)
    status_ts: str | None = None  # the progress message edited in place
    # Slack ts of the requests the running turn answers, and of those answered lately: a request
    # delivered again (a dead replica's work, queued again) is run only if no turn has answered
    # it. A turn that continues a cut-off one answers that turn's requests too.
    taking: list[str] = Field(default_factory=list)
    answered: list[str] = Field(default_factory=list)

    @property
    def key(self) -> ThreadKey:
        return ThreadKey(self.channel, self.thread_ts)

    @property
    def checkout_name(self) -> str:
        # Directory names: letters, digits, '.', '_', '-' (RepoCache.session_path's rule).
        return f"{self.channel}-{self.thread_ts}"

    def take(self, requests: list[str], *, continuing: bool) -> None:
        """The turn starting now answers `requests` (and, `continuing` a cut-off turn, its)."""
        self.taking = (self.taking if continuing else []) + requests

    def answer_taken(self) -> None:
        """The turn ended: what it took is answered (the latest ANSWERED_KEPT are kept)."""
        self.answered = (self.answered + self.taking)[-ANSWERED_KEPT:]
        self.taking = []

    @property
    def latest_proposal(self) -> Proposal | None:
        return self.proposals[-1] if self.proposals else None

    def retire_pull_request(self) -> None:
        """The pull request was merged or closed: the next one is opened from a new branch.

        Branches are numbered after the first one: `<first>-2`, `<first>-3`, ...
        """
        if self.pull_request is None:
            return
        self.past_pull_requests.append(self.pull_request)
        self.pull_request = None
        first = self.past_pull_requests[0].branch
        self.branch = f"{first}-{len(self.past_pull_requests) + 1}"

    def record_tool(self, tool: str, ok: bool, seconds: float) -> None:
        self.trace.append(TraceEntry(tool=tool, ok=ok, seconds=round(seconds, 3)))
        del self.trace[:-TRACE_LIMIT]

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str) -> Session:
        try:
            return cls.model_validate_json(text)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "session"
            raise SessionCorrupt(f"{where}: {first.get('msg', 'invalid')}") from None
