"""The guard words of a session thread: an admin's `override REASON` (the latest proposal may
pass its freeze) and a policy owner's `waive RULE REASON [for 7d]` (the rule stops blocking
this thread's proposals until the waiver ends). Both are audited, kept in the guard store (so
every replica honours them) and written into the pull request's body.

Runs inside the thread's lease (bot.runtime.messages).
"""

from __future__ import annotations

from bot.domain.sessions import Session
from bot.guards import freezes, waivers
from bot.guards.gate import OVERRIDE
from bot.guards.people import admins_text, is_one_of, names
from bot.guards.replies import GuardReply, Override, Unreadable, Waive
from bot.guards.windows import iso
from bot.handlers.guard_gate import guarded_envs
from bot.services import Services
from bot.store.guard_store import Grant


def is_override_for(svc: Services, session: Session, user: str) -> bool:
    """Whether `override ...` from `user` is meant for the guard: they are an admin, or the
    latest proposal is frozen (else it is an ordinary request: "override the image tag")."""
    s = svc.settings
    if is_one_of(user, s.teams.admins, svc.groups.members):
        return True
    latest = session.latest_proposal
    if latest is None:
        return False
    active = freezes.active(s.guards, svc.guards.freezes(), svc.clock())
    return bool(freezes.frozen(guarded_envs(latest), active))


def handle(svc: Services, session: Session, user: str, word: GuardReply) -> None:
    """`svc.chat` must already mask (the runner wraps it)."""
    if isinstance(word, Unreadable):
        _post(svc, session, f"<@{user}> {word.problem}")
    elif isinstance(word, Override):
        _override(svc, session, user, word)
    else:
        _waive(svc, session, user, word)


def _override(svc: Services, session: Session, user: str, word: Override) -> None:
    key = session.key
    s = svc.settings
    latest = session.latest_proposal
    if not is_one_of(user, s.teams.admins, svc.groups.members):
        _post(
            svc,
            session,
            f"<@{user}> only {admins_text(s.teams.admins)} may override a "
            "freeze; ask one to reply `override REASON` here, or approve after the freeze "
            "ends.",
        )
        return
    if latest is None or latest.approved_by:
        _post(svc, session, f"<@{user}> there is no proposal waiting for approval to override.")
        return
    number = len(session.proposals)
    now = svc.clock()
    hits = freezes.frozen(guarded_envs(latest), freezes.active(s.guards, svc.guards.freezes(), now))
    # Kept as long as the session may live: the proposal's approval may come late.
    svc.guards.add_grant(
        key.id, Grant(OVERRIDE, latest.ts, word.reason, user, now, now + s.session_ttl)
    )
    svc.audit.record(
        key.channel,
        key.thread_ts,
        user,
        "override",
        {
            "proposal": number,
            "proposal_ts": latest.ts,
            "reason": word.reason,
            "frozen": [h.env for h in hits],
        },
    )
    state = (
        f"it was frozen ({freezes.summary(hits)})"
        if hits
        else "it is not frozen now, and stays approvable if a freeze starts"
    )
    _post(
        svc,
        session,
        f":unlock: <@{user}> overrode the freeze for proposal {number}: "
        f"{word.reason}. It may be approved as usual; {state}. The override is written into "
        "the pull request.",
    )


def _waive(svc: Services, session: Session, user: str, word: Waive) -> None:
    key = session.key
    owners = waivers.owners(word.rule, svc.settings.guards.policy_owners)
    if not owners:
        _post(
            svc,
            session,
            f"<@{user}> `{word.rule}` cannot be waived: only rules listed under "
            "`policy_owners` in the settings file can, and schema errors never; change the "
            "proposal so it passes instead.",
        )
        return
    if not is_one_of(user, owners, svc.groups.members):
        _post(
            svc,
            session,
            f"<@{user}> only the owners of `{word.rule}` ({names(owners)}) may "
            "waive it; ask one of them to reply here.",
        )
        return
    now = svc.clock()
    until = now + word.seconds
    svc.guards.add_grant(key.id, Grant(waivers.WAIVER, word.rule, word.reason, user, now, until))
    svc.audit.record(
        key.channel,
        key.thread_ts,
        user,
        "waiver",
        {"rule": word.rule, "reason": word.reason, "until": iso(until)},
    )
    latest = session.latest_proposal
    lifted = (
        f" Proposal {len(session.proposals)} no longer needs it to pass."
        if latest is not None and word.rule in latest.denied
        else ""
    )
    _post(
        svc,
        session,
        f":white_check_mark: <@{user}> waived `{word.rule}` for this thread "
        f"until {iso(until)}: {word.reason}.{lifted} The waiver is listed in the pull "
        "request.",
    )


def _post(svc: Services, session: Session, text: str) -> None:
    key = session.key
    ts = svc.chat.post(key.channel, text, thread_ts=key.thread_ts)
    svc.store.index_message(key.channel, ts, key, svc.settings.session_ttl)
