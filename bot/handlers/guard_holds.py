"""A thread that waited on another thread's pull request (bot.guards.holds), once that pull
request is merged or closed: told, rebased onto the newest base, and proposed again (the
`rebase` of bot.handlers.rebase); an approval given before does not carry over, since every
approval belongs to the proposal it was given on.

Runs inside the waiting thread's lease (bot.runtime.guard_holds).
"""

from __future__ import annotations

from bot.domain.sessions import Session
from bot.handlers import rebase
from bot.handlers.guard_gate import guarded_envs
from bot.services import Services
from tools.redaction import SecretMask


def resume(
    svc: Services, session: Session, number: int, how: str, mask: SecretMask, *,
    freed: tuple[str, ...] = (),
) -> None:  # fmt: skip
    """`svc.chat` must already mask with `mask`; the caller saves `session`. `freed`: the
    environments the pull request held (empty: not known)."""
    latest = session.latest_proposal
    if latest is None or latest.approved_by:
        return  # nothing waits here any more
    wanted = guarded_envs(latest)
    if freed and wanted is not None and not set(freed).intersection(wanted):
        return  # a newer proposal no longer touches what it held
    before = len(session.proposals)
    rebase.post(
        svc,
        session,
        f":arrow_forward: Pull request #{number}, which held an "
        f"environment of this thread, was {how}. Rebasing onto the newest "
        f"`{session.base_branch}` and proposing again; approve the new proposal.",
    )
    rebase.rebase(svc, session, "", mask)
    latest = session.latest_proposal
    if len(session.proposals) == before and latest is not None and not latest.approved_by:
        # The base did not move (the pull request was closed unmerged): the proposal stands.
        rebase.post(
            svc,
            session,
            f"Proposal {before} is unchanged on the newest base, and "
            "nothing holds it now: it may be approved.",
        )
