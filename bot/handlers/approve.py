"""The approve reaction: check who, which proposal and that it is unchanged; then publish.

Every refusal is explained in the thread. Anything that cannot be checked (the store, Slack's
user groups, GitHub) refuses: nothing is pushed on a guess.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from bot.approvals import refusal
from bot.handlers import ci
from bot.publish.pipeline import Published, PublishError, publish
from bot.publish.pr_text import pr_body, pr_title
from bot.publish.proposal import Proposal, ProposalChanged
from bot.services import Services
from bot.sessions import ProposalRecord, PullRequestRecord, Session
from bot.slack.payloads import Reaction
from bot.workspaces import WorkspaceError

log = logging.getLogger(__name__)


class Refused(Exception):
    """The approval was refused; the message is posted in the thread."""


def check_approval(svc: Services, session: Session, reaction: Reaction) -> ProposalRecord:
    """The proposal the reaction approves, or Refused saying why not."""
    record = next((p for p in session.proposals if p.ts == reaction.item_ts), None)
    latest = session.latest_proposal
    if record is None or latest is None:
        raise Refused("react on a proposal message (the one that ends with the approve line)")
    if record is not latest:
        raise Refused(
            f"that is proposal {session.proposals.index(record) + 1}, not the latest "
            f"(proposal {len(session.proposals)}); react on the latest one"
        )
    s = svc.settings
    why = refusal(
        reaction.user,
        requester=session.requester,
        approvers=s.approvers,
        allow_self=s.allow_self_approval,
        members=svc.groups.members,
    )
    if why is not None:
        raise Refused(why)
    return record


def approve(
    svc: Services, session: Session, reaction: Reaction, mask: Callable[[str], str]
) -> None:
    key = session.key
    try:
        record = check_approval(svc, session, reaction)
        published = _publish(svc, session, record, reaction.user, mask)
    except Refused as exc:
        svc.metrics.approvals.labels("refused").inc()
        svc.chat.post(key.channel, f"<@{reaction.user}> not opened: {exc}", thread_ts=key.thread_ts)
        return
    svc.metrics.approvals.labels("accepted").inc()
    svc.metrics.prs.labels("opened" if published.created else "updated").inc()
    session.pull_request = PullRequestRecord(
        number=published.pr_number, url=published.pr_url, branch=published.branch
    )
    ci.link(svc, session, published.pr_number, published.pr_url)  # GitHub's news -> thread
    verb = "Opened" if published.created else "Updated"
    # An update is a new commit on the same pull request: link that commit.
    commit = (
        "" if published.created else f" with commit {published.pr_url}/commits/{published.commit}"
    )
    svc.chat.post(
        key.channel,
        f":rocket: {verb} pull request #{published.pr_number}: {published.pr_url}{commit} "
        f"(approved by <@{reaction.user}>; nothing was applied to any cluster)",
        thread_ts=key.thread_ts,
    )


def _publish(
    svc: Services, session: Session, record: ProposalRecord, approver: str,
    mask: Callable[[str], str],
) -> Published:  # fmt: skip
    code_host = svc.code_host()
    if code_host is None:
        raise Refused("GitHub credentials are not configured (GITHUB_TOKEN or a GitHub App)")
    s = svc.settings
    if not s.repo_url:
        raise Refused("TANKA_BOT_REPO_URL is not set")
    try:
        checkout = svc.workspaces.open(session)
    except WorkspaceError as exc:
        raise Refused(str(exc)) from None
    proposal = Proposal(
        base_commit=record.base_commit,
        tree=record.tree,
        diff="",
        diff_hash=record.diff_hash,
        files=record.files,
        title=record.title,
        summary=record.summary,
        created=datetime.fromtimestamp(record.created or 0, UTC),
    )
    thread_url = svc.chat.permalink(session.channel, session.thread_ts)
    body = pr_body(
        summary=record.summary,
        files=record.files,
        requester=f"Slack user {session.requester}",
        approver=f"Slack user {approver}",
        environments=record.envs,
        thread_url=thread_url,
        request=session.request,
    )
    try:
        return publish(
            checkout.root,
            proposal,
            code_host=code_host,
            base_branch=s.base_branch,
            branch=session.branch,
            title=mask(pr_title(session.request)),
            body=mask(body),
            remote_url=s.repo_url,
            protected=s.protected_paths,
        )
    except ProposalChanged as exc:
        raise Refused(str(exc)) from None
    except PublishError as exc:
        raise Refused(str(exc)) from None
    finally:
        close = getattr(code_host, "close", None)
        if callable(close):
            close()
