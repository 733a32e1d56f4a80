"""What GitHub tells the bot about its pull requests, as values: checks, reviews, comments, state.

bot.inbound.github_webhook parses webhook payloads into these; bot.domain.pr_state and
bot.handlers.ci act on them. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

# Conclusions that make a check (and the pull request's CI) fail.
# A commit status's `error` state counts as failing too.
FAILING = frozenset(
    {"failure", "timed_out", "cancelled", "action_required", "startup_failure", "stale", "error"}
)
STATUS_DONE = frozenset({"success", "failure", "error"})  # a commit status's final states
STATUS_ORDER = {"requested": 0, "waiting": 0, "pending": 0, "queued": 0, "in_progress": 1,
                "completed": 2}  # fmt: skip


@dataclass(frozen=True, slots=True)
class PullRef:
    repo: str  # owner/name, lower case: GitHub's names are case-insensitive
    number: int


@dataclass(frozen=True, slots=True)
class CheckRunUpdate:
    pr: PullRef
    head_sha: str
    check_id: int
    name: str
    status: str  # queued, in_progress, completed (and GitHub's other pending states)
    conclusion: str  # "" until completed; success, failure, neutral, skipped, ...
    url: str
    summary: str = ""  # a commit status's description (a check run's output is read on demand)

    @property
    def failed(self) -> bool:
        return self.status == "completed" and self.conclusion in FAILING


@dataclass(frozen=True, slots=True)
class ReviewSubmitted:
    pr: PullRef
    reviewer: str
    state: str  # approved, changes_requested, commented
    body: str
    url: str


@dataclass(frozen=True, slots=True)
class CommentAdded:
    pr: PullRef
    author: str
    body: str
    url: str
    path: str = ""  # set for review comments on a line of the diff
    line: int | None = None


@dataclass(frozen=True, slots=True)
class PullRequestClosed:
    pr: PullRef
    merged: bool
    by: str  # who merged it, or who closed it
    url: str


@dataclass(frozen=True, slots=True)
class PullRequestUpdated:
    """The pull request was opened, reopened or pushed to; `conflicts` when GitHub says so."""

    pr: PullRef
    head_sha: str
    conflicts: bool


@dataclass(frozen=True, slots=True)
class CommitStatus:
    """A commit status: no pull request named, only the branches whose head `sha` is."""

    repo: str
    sha: str
    status_id: int  # GitHub numbers a context's statuses in the order they were set
    context: str
    state: str  # pending, success, failure, error
    description: str
    url: str
    branches: tuple[str, ...]

    def as_check(self, pr: PullRef) -> CheckRunUpdate:
        """The status as a check of pull request `pr` (whose head branch is one of `branches`)."""
        done = self.state in STATUS_DONE
        return CheckRunUpdate(
            pr=pr,
            head_sha=self.sha,
            check_id=self.status_id,
            name=self.context,
            status="completed" if done else "in_progress",
            conclusion=self.state if done else "",
            url=self.url,
            summary=self.description,
        )


PullRequestEvent = (
    CheckRunUpdate | ReviewSubmitted | CommentAdded | PullRequestClosed | PullRequestUpdated
)
GitHubEvent = PullRequestEvent | CommitStatus
# Each kind by its class name (the work queue keeps events as text, bot.runtime.work).
EVENT_KINDS: dict[str, type[GitHubEvent]] = {
    kind.__name__: kind
    for kind in (CheckRunUpdate, ReviewSubmitted, CommentAdded, PullRequestClosed,
                 PullRequestUpdated, CommitStatus)
}  # fmt: skip


def subject(event: GitHubEvent) -> str:
    """What the event is about, for a log line: `owner/name#12`, or `owner/name@<sha>`."""
    if isinstance(event, CommitStatus):
        return f"{event.repo}@{event.sha[:12]}"
    return f"{event.pr.repo}#{event.pr.number}"
