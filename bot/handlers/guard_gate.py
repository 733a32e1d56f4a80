"""The guardrails around a proposal (bot.guards): what its message says of them, the approval's
refusal when one holds (asked by bot.handlers.approve after the approval rules), the holds a
new pull request takes, and the lines its body gets (overrides and waivers).

Fail closed: when the guard store cannot be read, an approval is refused (and says so); a
proposal is still shown, saying that the guards will be checked when it is approved.
"""

from __future__ import annotations

import logging

from bot.domain.proposal import Proposal
from bot.domain.sessions import Session
from bot.guards import freezes, gate, holds, waivers
from bot.guards.freezes import env_dir
from bot.guards.windows import iso
from bot.handlers import ci
from bot.services import Services
from bot.store.base import StoreUnavailable
from bot.store.guard_store import HoldRecord

log = logging.getLogger(__name__)

# A thread waits on another's pull request at most this long (then `rebase` by hand).
WAIT_TTL = 14 * 86_400.0


def guarded_envs(record: Proposal) -> tuple[str, ...] | None:
    """The environments a guard looks at: those the proposal renders differently; None when
    its rendered diff is unknown (every freeze and hold then applies: fail closed)."""
    if record.affected is None:
        return None
    return tuple(sorted({env_dir(e) for e in record.envs}))


def asked(session: Session, record: Proposal) -> gate.Asked:
    return gate.Asked(session.key.id, record.ts, guarded_envs(record), record.denied)


def refusal(svc: Services, session: Session, record: Proposal, user: str) -> gate.Refusal | None:
    """Why a guard refuses the approval of `record`, or None. Counted on /metrics by guard; a
    hold makes the thread wait on the holding pull request (audited `proposal_waiting`)."""
    s = svc.settings
    try:
        found = gate.refusal(
            asked(session, record), s.guards, s.teams.admins, svc.guards, svc.clock()
        )
        if found is not None and found.guard == "hold":
            _wait(svc, session, record, user, session.proposals.index(record) + 1)
    except StoreUnavailable as exc:
        found = gate.Refusal(
            "store",
            f"the guardrails could not be checked ({exc}); try again when the store is back",
        )
    if found is not None:
        svc.metrics.guard_refusals.labels(found.guard).inc()
    return found


def _wait(svc: Services, session: Session, record: Proposal, user: str, number: int) -> None:
    """The thread waits on each pull request holding `record`'s environments (proposal
    `number`: the one being posted, or approved)."""
    key = session.key
    held = holds.conflicts(svc.guards.holds(), guarded_envs(record), key.id)
    for repo, pr in sorted({(h.repo, h.number) for h in held}):
        svc.guards.wait_on(repo, pr, key.id, WAIT_TTL)
        svc.audit.record(
            key.channel,
            key.thread_ts,
            user,
            "proposal_waiting",
            {
                "repo": repo,
                "pr": pr,
                "proposal": number,
                "environments": sorted({h.env for h in held if h.number == pr}),
            },
        )


def proposal_note(svc: Services, session: Session, record: Proposal) -> str:
    """Lines for the proposal's message: the freezes, failing policies and holds that will
    refuse its approval now ("" when none). A hold also makes the thread wait (audited)."""
    s = svc.settings
    lines = []
    try:
        a = asked(session, record)
        grants = svc.guards.grants(a.thread)
        hits = freezes.frozen(a.envs, freezes.active(s.guards, svc.guards.freezes(), svc.clock()))
        if hits:
            lines.append(
                f":snowflake: Frozen: {freezes.summary(hits)}. Approval opens no pull "
                "request until the freeze ends or an admin replies `override REASON`."
            )
        blocked = waivers.blocking(a.denied, grants)
        if blocked:
            rules = ", ".join(f"`{r}`" for r in blocked)
            lines.append(
                f":no_entry: Policy {rules} denies this change: it cannot be approved "
                "unless the rule's owners reply `waive RULE REASON [for 7d]`."
            )
        held = holds.conflicts(svc.guards.holds(), a.envs, a.thread)
        if held:
            lines.append(
                f":hourglass: Waiting: {holds.text(held)}. Approval waits until it is "
                "merged or closed; then I rebase this thread and propose again."
            )
            _wait(svc, session, record, session.requester, len(session.proposals) + 1)
    except StoreUnavailable as exc:
        lines.append(
            f":warning: the guardrails could not be checked now ({exc}); approval "
            "checks them again."
        )
    return "\n".join(lines)


def pr_lines(svc: Services, session: Session, record: Proposal) -> list[str]:
    """What the pull request body says of the guards: the override that let a frozen proposal
    pass, and each waiver that lifted a failing rule (who, why, until when)."""
    grants = svc.guards.grants(session.key.id)
    lines = [
        f"- Freeze overridden by Slack user {g.by}: {g.reason}"
        for g in grants
        if g.kind == gate.OVERRIDE and g.subject == record.ts
    ]
    lines += [
        f"- Policy `{g.subject}` waived by Slack user {g.by} until {iso(g.until)}: {g.reason}"
        for g in waivers.listed(grants, record.denied)
    ]
    return lines


def claim(svc: Services, session: Session, record: Proposal, number: int, url: str) -> None:
    """The new pull request holds the environments the proposal changes (best effort: the
    pull request exists either way; a hold not taken is logged)."""
    repo = ci.repo_name(svc)
    envs = guarded_envs(record) or ()
    if repo is None or not envs:
        return
    now = svc.clock()
    try:
        for env in envs:
            svc.guards.claim(HoldRecord(env, repo, number, url, session.key.id, now))
    except StoreUnavailable as exc:
        log.warning("pull request #%d holds no environment: %s", number, exc)
