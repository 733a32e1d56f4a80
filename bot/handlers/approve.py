"""The approve reaction: check who, which proposal and that it is unchanged; count it against
the proposal's approval rules (bot.policy.rules); publish when the last required approval arrives.
Removing the reaction withdraws the approval, whichever of the add and the removal is handled
first: the store keeps each person's latest mark by Slack's event time.

Approvals are members of a set in the store, one per proposal, so every replica counts the same
ones; publishing runs inside the thread's lease, so of two approvals arriving together on two
replicas one records and the other, seeing the proposal complete, publishes: one pull request.

Every refusal is explained in the thread; the same one again to the same person (who clicked
Approve twice) goes to them alone, so the approvers it names are not pinged again. Anything that
cannot be checked (the store, Slack's user groups, GitHub) refuses: nothing is pushed on a guess.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable

from bot.domain.alerts import requester_label
from bot.domain.proposal import Proposal
from bot.domain.requests import Reaction
from bot.domain.sessions import PullRequestRecord, Session
from bot.errors import UserError
from bot.guards.staleness import Moved
from bot.handlers import ci, guard_gate, guard_stale, proposal_message
from bot.policy import rules as policy
from bot.publish.pipeline import Published, PublishError, publish
from bot.publish.pr_text import pr_body, pr_title
from bot.publish.proposal import ProposalChanged
from bot.services import Services
from bot.store.base import StoreUnavailable
from bot.workspace.workspaces import WorkspaceError

log = logging.getLogger(__name__)

REFUSAL_QUIET = 600.0  # seconds during which the same refusal is said in the thread once


class Refused(UserError):
    """The approval was refused; the message is posted in the thread."""


def _said_before(svc: Services, session: Session, reaction: Reaction, why: str) -> bool:
    """Whether this refusal was said in the thread to this person, for this message, lately.

    A refusal names the approvers, so each one in the thread pings them; someone clicking
    Approve again and again (or re-adding the emoji) is told again only in a message of their own.
    """
    digest = hashlib.sha256(why.encode()).hexdigest()[:16]
    token = f"refused:{session.key.id}:{reaction.item_ts}:{reaction.user}:{digest}"
    try:
        return not svc.store.first_seen(token, REFUSAL_QUIET)
    except StoreUnavailable:  # cannot tell: a refusal said twice beats one never said
        return False


def approvals_key(session: Session, proposal: Proposal) -> str:
    return _approvals_name(session, proposal.ts)


def _approvals_name(session: Session, ts: str) -> str:
    return f"approvals:{session.key.id}:{ts}"


def requirements(svc: Services, proposal: Proposal) -> tuple[policy.ApprovalRequirement, ...]:
    s = svc.settings
    return policy.requirements(
        proposal.affected, s.teams.approval_rules,
        approvers=s.approvers, allow_self=s.allow_self_approval,
    )  # fmt: skip


def check_approval(svc: Services, session: Session, reaction: Reaction) -> Proposal:
    """The proposal the reaction approves, or Refused saying why not."""
    proposal = next((p for p in session.proposals if p.ts == reaction.item_ts), None)
    latest = session.latest_proposal
    if proposal is None or latest is None:
        raise Refused("react on a proposal message (the one that ends with the approve line)")
    if proposal is not latest:
        raise Refused(
            f"that is proposal {session.proposals.index(proposal) + 1}, not the latest "
            f"(proposal {len(session.proposals)}); react on the latest one"
        )
    why = pull_request_refusal(session, proposal) or policy.refusal(
        reaction.user, requirements(svc, proposal), session.requester, svc.groups.members
    )
    if why is not None:
        raise Refused(why)
    guarded = guard_gate.refusal(svc, session, proposal, reaction.user)  # freezes, waivers, holds
    if guarded is not None:
        raise Refused(guarded.text)
    return proposal


def pull_request_refusal(session: Session, proposal: Proposal) -> str | None:
    """Why `proposal` cannot go into a pull request given the session's one, or None. Pure.

    Open: a proposal already in it is not published twice. Merged: a proposal on the base
    commit the merged one was made from would carry the merged change again; `rebase` first.
    Closed without merging: the proposal may go into a new pull request (bot.domain.sessions,
    `Session.retire_pull_request`).
    """
    pr = session.pull_request
    if pr is None:
        return None
    if proposal.approved_by and pr.state == "open":
        return f"this proposal is already in pull request #{pr.number}"
    if pr.state == "merged" and any(
        p.approved_by and p.base_commit == proposal.base_commit for p in session.proposals
    ):
        return (
            f"pull request #{pr.number} was merged, and this proposal is on the base it was "
            f"made from, so a new pull request would repeat it; reply `rebase` to move this "
            f"session onto the newest `{session.base_branch}`, then approve the new proposal"
        )
    return None


def approve(
    svc: Services, session: Session, reaction: Reaction, mask: Callable[[str], str], *,
    renew: Callable[[Proposal, Moved], None] | None = None,
) -> None:  # fmt: skip
    # `renew`: given, an approval of a proposal the base branch has overtaken does not count;
    # `renew` renders it again on the new base (bot.handlers.guard_stale).
    key = session.key
    user = reaction.user
    number = 0
    _mark_ended(svc, session)
    try:
        proposal = check_approval(svc, session, reaction)
        number = session.proposals.index(proposal) + 1
        if renew is not None and _renewed(svc, session, proposal, renew):
            return
        name = approvals_key(session, proposal)
        svc.store.add_member(name, user, svc.settings.session_ttl, at=reaction.at)
        standing = svc.store.members(name)
        if user not in standing:  # a later removal of this reaction was handled first
            raise Refused(
                "you removed this reaction after adding it, so the approval does not count; "
                "react again to approve"
            )
        reqs = requirements(svc, proposal)
        counted = policy.tally(reqs, standing, session.requester, svc.groups.members)
        if not counted.complete:
            svc.metrics.approvals.labels("accepted").inc()
            _audit(svc, session, user, "counted", counted=counted, number=number)
            text = f":ballot_box_with_check: <@{user}> approved proposal {number}: "
            svc.chat.post(key.channel, text + counted.missing_text(), thread_ts=key.thread_ts)
            return
        retired = session.pull_request
        if retired is not None and retired.state != "open":
            session.retire_pull_request()  # never push to a merged or closed pull request's branch
        else:
            retired = None
        published = _publish(svc, session, proposal, counted.approvers, mask)
    except Refused as exc:
        svc.metrics.approvals.labels("refused").inc()
        svc.audit.record(key.channel, key.thread_ts, user, "approval",
                         {"accepted": False, "proposal": number, "why": str(exc)})  # fmt: skip
        text = f"<@{user}> not opened: {exc}"
        if _said_before(svc, session, reaction, str(exc)):  # only to them: no more pings
            svc.chat.ephemeral(key.channel, user, text, thread_ts=key.thread_ts)
        else:
            svc.chat.post(key.channel, text, thread_ts=key.thread_ts)
        return
    svc.metrics.approvals.labels("accepted").inc()
    _audit(svc, session, user, "complete", counted=counted, number=number)
    svc.metrics.prs.labels("opened" if published.created else "updated").inc()
    proposal = proposal.model_copy(update={"approved_by": counted.approvers})
    session.proposals[number - 1] = proposal
    session.pull_request = PullRequestRecord(
        number=published.pr_number, url=published.pr_url, branch=published.branch
    )
    svc.audit.record(
        key.channel, key.thread_ts, user, "pr_opened" if published.created else "pr_updated",
        {"number": published.pr_number, "url": published.pr_url, "branch": published.branch,
         "proposal": number, "diff_hash": proposal.diff_hash, "approvers": counted.approvers},
    )  # fmt: skip
    ci.link(svc, session, published.pr_number, published.pr_url, published.branch)  # news -> thread
    guard_gate.claim(svc, session, proposal, published.pr_number, published.pr_url)
    verb = "Opened" if published.created else "Updated"
    # An update is a new commit on the same pull request: link that commit.
    commit = (
        "" if published.created else f" with commit {published.pr_url}/commits/{published.commit}"
    )
    names = ", ".join(f"<@{u}>" for u in counted.approvers)
    why = (
        f" from the new branch `{published.branch}`, since pull request #{retired.number} was "
        f"{retired.state}"
        if retired is not None
        else ""
    )
    line = proposal_message.approved_line(
        number, counted.approvers, published.pr_number, published.pr_url
    )
    proposal_message.resolve(svc, session, proposal, line)
    svc.chat.post(
        key.channel,
        f":rocket: {verb} pull request #{published.pr_number}: {published.pr_url}{commit}{why} "
        f"(approved by {names}; nothing was applied to any cluster)",
        thread_ts=key.thread_ts,
    )


def _renewed(
    svc: Services, session: Session, proposal: Proposal, renew: Callable[[Proposal, Moved], None]
) -> bool:
    """Whether the base moved under `proposal` so that it was proposed again (`renew`)."""
    try:
        move = guard_stale.moved(svc, session, proposal)
    except guard_stale.NotChecked as exc:
        raise Refused(str(exc)) from None
    if move is None:
        return False
    renew(proposal, move)
    return True


def _mark_ended(svc: Services, session: Session) -> None:
    """Mark the session's pull request merged or closed when GitHub said so (bot.handlers.ci)."""
    state = ci.ended(svc, session)
    pr = session.pull_request
    if pr is not None and state is not None and pr.state != state:
        session.pull_request = pr.model_copy(update={"state": state})


def withdraw(
    svc: Services, session: Session, reaction: Reaction, mask: Callable[[str], str]
) -> None:
    """The approve reaction was removed: the approval no longer counts."""
    key = session.key
    user = reaction.user
    # Recorded even when it did not count, and before the proposal is looked up: its add may
    # not have been handled yet (Slack does not order deliveries), nor the turn that posted the
    # proposal have saved it (this runs without the thread's lease). This later mark keeps
    # that add from counting when it is handled.
    name = _approvals_name(session, reaction.item_ts)
    counts = svc.store.remove_member(name, user, svc.settings.session_ttl, at=reaction.at)
    proposal = next((p for p in session.proposals if p.ts == reaction.item_ts), None)
    number = session.proposals.index(proposal) + 1 if proposal is not None else 0
    if not counts or proposal is None:
        svc.audit.record(key.channel, key.thread_ts, user, "approval",
                         {"accepted": False, "withdrawn": True, "proposal": number,
                          "why": "withdrawn; it did not count"})  # fmt: skip
        return
    svc.metrics.approvals.labels("withdrawn").inc()
    counted = policy.tally(requirements(svc, proposal), svc.store.members(name),
                           session.requester, svc.groups.members)  # fmt: skip
    _audit(svc, session, user, "withdrawn", counted=counted, number=number)
    if proposal.approved_by and session.pull_request is not None:
        text = (f"<@{user}> withdrew their approval of proposal {number}, but it is already in "
                f"pull request #{session.pull_request.number}: close it there if it should not "
                "merge.")  # fmt: skip
    else:
        text = (f":leftwards_arrow_with_hook: <@{user}> withdrew their approval of proposal "
                f"{number}: {counted.missing_text()}")  # fmt: skip
    svc.chat.post(key.channel, text, thread_ts=key.thread_ts)


def _audit(
    svc: Services, session: Session, user: str, why: str, *, counted: policy.Tally, number: int
) -> None:
    """An approval counted ("counted", "complete") or taken back ("withdrawn")."""
    key = session.key
    svc.audit.record(key.channel, key.thread_ts, user, "approval", {
        "accepted": why != "withdrawn", "withdrawn": why == "withdrawn", "why": why,
        "proposal": number, "missing": counted.missing,
        "still_needed": counted.missing_text(), "approvers": counted.approvers,
    })  # fmt: skip


def _publish(
    svc: Services, session: Session, proposal: Proposal, approvers: tuple[str, ...],
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
    thread_url = svc.chat.permalink(session.channel, session.thread_ts)
    try:
        guards = guard_gate.pr_lines(svc, session, proposal)
    except StoreUnavailable as exc:
        raise Refused(f"the overrides and waivers could not be read ({exc}); try again") from None
    body = pr_body(
        summary=proposal.summary,
        files=proposal.files,
        requester=requester_label(session.requester),
        approver=", ".join(f"Slack user {a}" for a in approvers),
        environments=proposal.envs,
        thread_url=thread_url,
        request=session.request,
        review=proposal.review,
        guards=guards,
    )
    try:
        return publish(
            checkout.root,
            proposal,  # as shown and stored: the approval binds its base, tree and hash
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
