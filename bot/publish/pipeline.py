"""The approval step: commit exactly the proposed change, push the bot's branch, open the PR.

This is the only code that publishes, and it runs outside the model's reach (docs/design.md,
decision 2). Every step refuses rather than guesses: the checkout must still hold the proposal,
HEAD must descend from the proposal's base commit, GitHub must answer before anything is pushed,
and the commit's tree must be the proposed tree. The token reaches git only through askpass.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from bot.domain.proposal import Proposal
from bot.git.askpass import TokenCredentials
from bot.git.checkout import Checkout, Identity
from bot.github.code_host import PullRequestRef
from bot.github.errors import CodeHostError
from bot.publish.errors import (
    BranchConflict,
    NothingToPublish,
    ProtectedPathChanged,
    PublishError,
    PullRequestFailed,
    PushFailed,
)
from bot.publish.pr_text import branch_name, pr_body, quiet
from bot.publish.proposal import ProposalChanged, check_unchanged
from tools.gitrun import GitError
from tools.redaction import scrub_credentials
from tools.sandbox import glob_match

__all__ = [
    "BranchConflict",
    "NothingToPublish",
    "ProtectedPathChanged",
    "PublishError",
    "Published",
    "PullRequestFailed",
    "PullRequestHost",
    "PushFailed",
    "branch_name",
    "pr_body",
    "publish",
]

log = logging.getLogger(__name__)

T = TypeVar("T")


class PullRequestHost(Protocol):
    """What publishing needs from the code host (GitHubCodeHost in bot.github.code_host)."""

    def open_pull_request(
        self, head: str, base: str, title: str, body: str, draft: bool = False
    ) -> PullRequestRef: ...

    def find_pull_request(self, head: str) -> PullRequestRef | None: ...

    def update_pull_request_body(self, number: int, body: str) -> None: ...

    def token_for_push(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Published:
    pr_url: str
    pr_number: int
    branch: str
    commit: str
    created: bool  # False: the branch's open pull request was updated


def publish(
    checkout_root: Path,
    proposal: Proposal,
    *,
    code_host: PullRequestHost,
    base_branch: str,
    branch: str,
    title: str,
    body: str,
    remote_url: str,
    author: Identity | None = None,
    protected: Sequence[str] = (),
) -> Published:
    """Commit `proposal` on `branch`, push it, and open (or update) its pull request.

    Files matching `protected` (TANKA_BOT_PROTECTED_PATHS) are refused here too: the tools
    already stop the agent writing them, and an approval must never publish them either.
    """
    if proposal.empty:
        raise NothingToPublish("nothing to publish: the proposal has no changes")
    _refuse_protected(proposal, protected)
    check_unchanged(proposal, checkout_root)
    checkout = Checkout(checkout_root, branch, proposal.base_commit)
    _check_history(checkout)
    # Ask GitHub first: if it is down, refuse before anything is committed or pushed.
    existing = _github(
        lambda: code_host.find_pull_request(branch),
        f"could not look up the pull request of {branch}; nothing was committed or pushed",
        pushed=False,
    )
    try:
        _switch_to(checkout)
        commit = _commit(checkout, proposal, title, author)
    except GitError as exc:  # an unexpected git failure on the way: say so, never a traceback
        raise PublishError(f"could not commit the change on {branch}: {exc}") from None
    pushed = _push(checkout, remote_url, TokenCredentials(code_host.token_for_push))
    ref = _open_or_update(
        code_host,
        existing,
        base_branch=base_branch,
        branch=branch,
        title=title,
        body=body,
        commit=pushed,
    )
    log.info("published %s at %s as pull request #%d", branch, commit[:12], ref.number)
    return Published(ref.url, ref.number, branch, pushed, ref.created)


def _github(call: Callable[[], T], failed: str, *, pushed: bool) -> T:
    try:
        return call()
    except CodeHostError as exc:  # already redacted; says what to fix
        again = "approve again to retry" if exc.retryable else "fix that, then approve again"
        raise PullRequestFailed(f"{failed}: {exc}; {again}", cause=exc, pushed=pushed) from None


def _check_history(checkout: Checkout) -> None:
    """HEAD must descend from the base commit, or the pull request would carry other commits."""
    try:
        head = checkout.head()
    except GitError as exc:
        raise ProposalChanged(f"HEAD could not be read: {exc}") from None
    if not checkout.git.ok("merge-base", "--is-ancestor", checkout.base_commit, head):
        raise ProposalChanged(
            f"HEAD ({head[:12]}) no longer descends from the proposal's base commit "
            f"{checkout.base_commit[:12]}"
        )


def _switch_to(checkout: Checkout) -> None:
    """Put HEAD on `checkout.branch`, creating it at the current commit; working tree kept."""
    git = checkout.git
    try:
        current = git.out("symbolic-ref", "--quiet", "--short", "HEAD")
    except GitError:
        current = ""  # detached HEAD
    if current == checkout.branch:
        return
    if git.ok("rev-parse", "--verify", "--quiet", f"refs/heads/{checkout.branch}"):
        raise BranchConflict(
            f"branch {checkout.branch} already exists in {checkout.root} but is not checked out; "
            f"switch to it (git switch {checkout.branch}) or delete it, then approve again"
        )
    try:
        git.run("switch", "--quiet", "--create", checkout.branch)
    except GitError as exc:
        raise BranchConflict(f"could not create branch {checkout.branch}: {exc}") from None


def _commit(checkout: Checkout, proposal: Proposal, title: str, author: Identity | None) -> str:
    """Commit the proposal (unless a previous attempt already did) and verify the tree."""
    git = checkout.git
    head = checkout.head()
    if head != proposal.base_commit and _tree_of(checkout, head) == proposal.tree:
        return head  # an earlier approval committed it and then failed later: reuse that commit
    commit = checkout.commit(_commit_message(title, proposal), author=author)
    if _tree_of(checkout, commit) != proposal.tree:
        # Files changed between the check and `git add`: undo our commit, keep the files.
        git.run("reset", "--quiet", "--soft", head)
        raise ProposalChanged("files changed while it was being committed")
    return commit


def _tree_of(checkout: Checkout, commit: str) -> str:
    return checkout.git.out("rev-parse", f"{commit}^{{tree}}")


def _commit_message(title: str, proposal: Proposal) -> str:
    # Merged into the base branch, a closing keyword here closes the issue: `quiet` (pr_text).
    subject = quiet(title.strip() or proposal.title.strip() or "tanka-bot change")
    body = quiet(proposal.summary.strip())
    return f"{subject}\n\n{body}\n" if body else f"{subject}\n"


def _push(checkout: Checkout, remote_url: str, credentials: TokenCredentials) -> str:
    try:
        return checkout.push(remote_url, credentials=credentials).commit
    except GitError as exc:  # messages are already redacted by Git
        raise PushFailed(
            f"could not push branch {checkout.branch} to {scrub_credentials(remote_url)}: {exc}; "
            "no pull request was opened; check the remote and the token's write access, "
            "then approve again"
        ) from None


def _open_or_update(
    code_host: PullRequestHost,
    existing: PullRequestRef | None,
    *,
    base_branch: str,
    branch: str,
    title: str,
    body: str,
    commit: str,
) -> PullRequestRef:
    pushed = f"branch {branch} was pushed (commit {commit[:12]}) but"
    if existing is not None:
        number = existing.number
        _github(
            lambda: code_host.update_pull_request_body(number, body),
            f"{pushed} the description of pull request #{number} could not be updated",
            pushed=True,
        )
        return existing
    return _github(
        lambda: code_host.open_pull_request(branch, base_branch, title, body),
        f"{pushed} no pull request could be opened",
        pushed=True,
    )


def _refuse_protected(proposal: Proposal, protected: Sequence[str]) -> None:
    touched = [f for f in proposal.files if any(glob_match(g, f) for g in protected)]
    if touched:
        raise ProtectedPathChanged(
            f"refusing to publish: {', '.join(touched)} match TANKA_BOT_PROTECTED_PATHS "
            f"({', '.join(protected)}); revert those files, or change them in a pull request "
            "of your own"
        )
