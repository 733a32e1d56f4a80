"""A proposal's message once it is decided: approved (who, and the pull request), superseded
by a newer proposal, or its session closed. The buttons go, so nobody clicks a proposal that
can no longer be approved.

The message's blocks are kept in the store when it is posted (a blob that outlives the session
by a day):
chat.update replaces the blocks whole, and the diffs shown are not in the session record. If
the blob has expired, the message keeps its summary line only. An edit that fails is logged:
the approval or the new proposal it follows has already happened.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

from bot.domain.ports import ChatError
from bot.domain.proposal import Proposal
from bot.domain.sessions import Session
from bot.services import Services
from bot.slack import interactive
from bot.slack.blocks import Block, Rendered, fit, section
from bot.slack.masking import mask_tree

log = logging.getLogger(__name__)

CLOSED = ":wave: This session was closed, so this proposal can no longer be approved."
# The blocks outlive the session a little: a session reaped when idle still edits its message.
KEEP_AFTER_SESSION = 86_400.0


def _blob(session: Session, ts: str) -> str:
    return f"proposal-blocks:{session.key.id}:{ts}"


def remember(svc: Services, session: Session, ts: str, blocks: Sequence[Block]) -> None:
    """Keep the blocks as Slack got them: masked with the thread's mask (svc.chat is a
    MaskingChat in a thread), so neither the store nor a later edit, even by the sweep that
    has no thread mask, holds a Secret value the mask knows."""
    mask = getattr(svc.chat, "mask", None)
    shown = mask_tree(list(blocks), mask) if callable(mask) else list(blocks)
    svc.store.put_blob(
        _blob(session, ts),
        json.dumps(shown).encode(),
        svc.settings.session_ttl + KEEP_AFTER_SESSION,
    )


def approved_line(record_number: int, approvers: Sequence[str], number: int, url: str) -> str:
    names = ", ".join(f"<@{u}>" for u in approvers)
    return (
        f":white_check_mark: Proposal {record_number} approved by {names}: "
        f"<{url}|pull request #{number}>"
    )


def superseded_line(newer: int) -> str:
    return f":arrow_down: Proposal {newer} below replaces this one; approve that one instead."


def end_status(svc: Services, session: Session, text: str) -> None:
    """The status message of a turn that no longer runs: `text`, and no Cancel button."""
    if not session.status_ts:
        return
    try:
        svc.chat.update(session.channel, session.status_ts, text)
    except ChatError as exc:
        log.info("could not edit the status message %s: %s", session.status_ts, exc)


def resolve(svc: Services, session: Session, record: Proposal, line: str) -> None:
    """Edit the proposal's message: no buttons, and `line` saying what became of it."""
    key = session.key
    raw = svc.store.get_blob(_blob(session, record.ts))
    try:
        shown: list[Block] = json.loads(raw) if raw else []
    except ValueError:
        shown = []
    if not shown:
        number = session.proposals.index(record) + 1 if record in session.proposals else 0
        shown = [section(f"*Proposal {number}*: {len(record.files)} file(s) changed")]
    # The line may push a proposal that filled Slack's ~12,000 characters over: fit again,
    # keeping the summary and the line whole.
    fitted = fit(Rendered(line, interactive.resolved(shown, line)))
    try:
        svc.chat.update(key.channel, record.ts, line, blocks=fitted.blocks)
    except ChatError as exc:
        log.info("could not edit proposal message %s: %s", record.ts, exc)
