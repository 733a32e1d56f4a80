"""Stale proposals: an approval is checked against the base branch's head. When the base moved
since the proposal and the move changed a file one of the proposal's environments reads (the
importers analysis over the proposal's checkout: which environments import the moved files),
the approval does not count: the proposal is rendered again on the new base (the `rebase` of
bot.handlers.rebase) and posted as a new proposal, and approval is asked again.

A move that touched nothing those environments read changes nothing the proposal showed, so
its approval stands. Anything that cannot be checked refuses (fail closed).
"""

from __future__ import annotations

import os

from bot.domain.proposal import Proposal
from bot.domain.sessions import Session
from bot.guards import staleness
from bot.guards.staleness import Moved
from bot.handlers import rebase
from bot.handlers.guard_gate import guarded_envs
from bot.services import Services
from bot.workspace.workspaces import WorkspaceError
from tools.errors import ToolError
from tools.gitrun import GitError
from tools.redaction import SecretMask
from tools.tanka.errors import TankaError
from tools.tanka.imports.changed import commit_move
from tools.tanka.imports.importers import importers


class NotChecked(Exception):
    """Whether the base moved could not be checked; the approval is refused."""


def moved(svc: Services, session: Session, record: Proposal) -> Moved | None:
    """The base's move that makes `record` stale, or None. NotChecked when it cannot tell."""
    cache = svc.workspaces.cache
    envs = guarded_envs(record)
    try:
        cache.fetch()  # the head as GitHub has it now, not as of the last scheduled refresh
        head = cache.commit_of(session.base_branch)
        if head == record.base_commit:
            return None
        changes = commit_move(cache.path, record.base_commit, head).changes
        files = (*changes.added, *changes.modified, *changes.deleted)
        readers: list[str] = []
        if envs is not None:
            root = svc.workspaces.open(session).root
            here = [f for f in files if os.path.lexists(root / f)]
            gone = [f for f in files if not os.path.lexists(root / f)]
            top = os.path.realpath(root)
            readers = [os.path.relpath(r, top) for r in importers(root, here, gone, narrow=True)]
    except (GitError, TankaError, ToolError, OSError, WorkspaceError) as exc:
        raise NotChecked(
            f"whether `{session.base_branch}` moved could not be checked ({exc}); try again"
        ) from None
    return staleness.stale(head, record.base_commit, files, staleness.touched(envs, readers))


def repropose(
    svc: Services, session: Session, record: Proposal, move: Moved, *, user: str, mask: SecretMask
) -> None:
    """Say why the approval does not count, then rebase and propose again (`svc.chat` masks
    with `mask`; the caller saves `session`)."""
    key = session.key
    number = session.proposals.index(record) + 1
    svc.metrics.guard_refusals.labels("stale").inc()
    svc.audit.record(
        key.channel,
        key.thread_ts,
        user,
        "proposal_stale",
        {
            "proposal": number,
            "base_commit": record.base_commit,
            "head": move.head,
            "files": list(move.files[:50]),
            "environments": list(move.envs),
        },
    )
    envs = ", ".join(f"`{e}`" for e in move.envs[:5]) or "its environments"
    rebase.post(
        svc,
        session,
        f":arrows_counterclockwise: <@{user}> your approval of proposal "
        f"{number} does not count: `{session.base_branch}` moved to `{move.head[:7]}` "
        f"and changed what {envs} read. Rendering it again on the new base; approve the "
        "new proposal.",
    )
    rebase.rebase(svc, session, user, mask)
