"""A turn: the agent works on the session's checkout; then the answer and, if files changed, a
proposal with the git diff and the rendered-manifest diff.

Runs inside the thread's lease. Edits are saved to the store after every writing tool call and at
the end, so neither a crash nor a cancel loses them.
"""

from __future__ import annotations

import logging
import time

from bot.agent.agent import Agent, TurnResult
from bot.agent.cancel import CancelToken
from bot.agent.review import Review, ReviewInput, run_reviewed_turn
from bot.agent.trim import trim_history
from bot.domain.alerts import quiet_broadcasts
from bot.domain.prices import dollars, turn_cost
from bot.domain.proposal import Proposal
from bot.domain.sessions import Session
from bot.errors import Bug
from bot.git.checkout import Checkout
from bot.handlers import guard_gate, proposal_message
from bot.handlers.progress import CONTEXT_WINDOWS, Progress
from bot.policy import rules as policy
from bot.publish.change import Change, proposed_change, review_input
from bot.services import Services
from bot.slack import blocks, interactive
from bot.store.sessions import load_conversation, store_conversation
from bot.workspace.workspaces import WorkspaceError
from tools.context import ToolContext
from tools.errors import ToolError
from tools.git import working_tree_id
from tools.gitrun import GitError
from tools.mask_teacher import MaskTeacher
from tools.redaction import SecretMask
from tools.tanka.check import CheckOptions
from tools.tanka.diff.groups import group_envs, grouped_summary, grouped_text
from tools.tanka.diff.revision import RevisionDiff
from tools.tanka.errors import TankaError

log = logging.getLogger(__name__)


def run_turn(
    svc: Services, session: Session, prompt: str, cancel: CancelToken, mask: SecretMask
) -> None:
    """One turn; `svc.chat` must already mask with `mask` (the runner wraps it)."""
    key = session.key
    checkout = svc.workspaces.open(session)
    session.state = "running"
    working = ":hourglass_flowing_sand: working on it…"
    session.status_ts = svc.chat.post(key.channel, working, thread_ts=key.thread_ts,
                                      blocks=interactive.status_blocks(working))  # fmt: skip
    svc.store.index_message(key.channel, session.status_ts, key, svc.settings.session_ttl)
    _save(svc, session)

    def saved_write() -> None:
        svc.workspaces.save(session, checkout)
        _save(svc, session)

    def tool_done(name: str, ok: bool, seconds: float) -> None:
        session.record_tool(name, ok, seconds)
        svc.metrics.tool_calls.labels(name, "ok" if ok else "error").inc()
        svc.audit.record(key.channel, key.thread_ts, "", "tool_call",
                         {"tool": name, "ok": ok, "seconds": round(seconds, 3)})  # fmt: skip

    agent = _agent(svc)
    provider = agent.provider
    progress = Progress(
        svc.chat, key.channel, session.status_ts,
        window=CONTEXT_WINDOWS.get(provider.name, 128_000),
        mask=mask.apply, on_tool=tool_done, on_write=saved_write,
    )  # fmt: skip
    teacher = MaskTeacher(checkout.root, session.base_commit, mask, svc.differ)
    teacher.start()  # renders while the model thinks; the first tool call waits for it
    ctx = ToolContext(
        root=checkout.root,
        protected_paths=svc.settings.protected_paths,
        base_commit=session.base_commit,
        pull_requests=svc.pull_requests,
        cancelled=cancel.is_set,
        policy_dir=svc.settings.policy_dir,
        kubernetes_version=svc.settings.kubernetes_version,
        secret_mask=mask,
        differ=svc.differ,  # one per service: base renders are shared by turns and proposals
        teach_mask=teacher,
    )
    conversation = load_conversation(session)
    window = CONTEXT_WINDOWS.get(provider.name, 128_000)
    history = trim_history(conversation.history, int(window * 0.6))
    started = time.monotonic()
    # With TANKA_BOT_REVIEW, a change is reviewed (and may be revised once) before it is shown.
    changes = _Changes(svc, session, checkout, mask, prompt)
    reviewed = run_reviewed_turn(
        agent, history, prompt, ctx, describe=changes.describe, observer=progress,
        cancel=cancel, enabled=svc.settings.review,
    )  # fmt: skip
    result = reviewed.result
    seconds = time.monotonic() - started
    conversation.history = (*history, *result.messages)
    conversation.record((), result.usage)
    store_conversation(session, conversation)
    session.turns += 1
    session.input_tokens += result.usage.input_tokens + result.usage.cache_read_tokens
    session.output_tokens += result.usage.output_tokens
    _count(svc, result, seconds)
    svc.workspaces.save(session, checkout)
    progress.finish(_status_line(result, cancel))
    # Render the change before anything is posted: that teaches the mask every Secret value of
    # the affected environments, at the base and now, so the answer cannot show one either.
    change = changes.current()
    _answer(svc, session, result, seconds)
    if change is not None:
        propose(svc, session, *change, review=reviewed.review)


def _agent(svc: Services) -> Agent:
    if svc.agent is None:
        raise Bug("a turn in the serving process of a split bot: its work process runs turns")
    return svc.agent


def _count(svc: Services, result: TurnResult, seconds: float) -> None:
    provider = _agent(svc).provider
    outcome = "ok" if result.ok else (result.error.kind.value if result.error else "error")
    svc.metrics.turns.labels(outcome).inc()
    svc.metrics.turn_seconds.observe(seconds)
    u = result.usage
    svc.metrics.tokens.labels(provider.name, provider.model, "input").inc(
        u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
    )
    svc.metrics.tokens.labels(provider.name, provider.model, "output").inc(u.output_tokens)


def _status_line(result: TurnResult, cancel: CancelToken) -> str:
    if result.ok:
        return f":white_check_mark: done in {result.steps} step(s)"
    if cancel.is_set():
        return ":octagonal_sign: cancelled; edits made so far are kept"
    return ":warning: the turn stopped early"


def _answer(svc: Services, session: Session, result: TurnResult, seconds: float) -> None:
    key = session.key
    text = result.text.strip()
    if result.error is not None:
        text = (text + "\n\n" if text else "") + f":warning: {result.error}"
    u = result.usage
    tokens_in = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
    model = _agent(svc).provider.model
    cost = turn_cost(svc.settings.price_table, model, tokens_in, u.output_tokens)
    usage = blocks.usage_line(
        input_tokens=result.usage.input_tokens + result.usage.cache_read_tokens,
        output_tokens=result.usage.output_tokens,
        tool_calls=result.tool_calls,
        seconds=seconds,
        cost=dollars(cost) if cost is not None else "",
    )
    # Whatever the model read (an alert, a repository file, a message the shortcut quoted) may
    # have talked it into a broadcast: the bot's answer pings no channel or group.
    text = quiet_broadcasts(text)
    message = blocks.plain(text or "(the model gave no answer)")
    ts = svc.chat.post(key.channel, message.text, thread_ts=key.thread_ts,
                       blocks=[*message.blocks, blocks.context(usage)])  # fmt: skip
    svc.store.index_message(key.channel, ts, key, svc.settings.session_ttl)
    # The web view's history: the answer and its cost, per turn.
    svc.audit.keep("answer", key, str(session.turns), {
        "turn": session.turns, "at": svc.clock(), "text": text, "input_tokens": tokens_in,
        "output_tokens": u.output_tokens, "cost": cost, "model": model,
        "seconds": round(seconds, 3), "tool_calls": result.tool_calls,
    })  # fmt: skip


def new_change(
    svc: Services, session: Session, checkout: Checkout, mask: SecretMask, tree: str | None = None
) -> Change | None:
    """The checkout's change when it is new (bot.publish.change.proposed_change), or None; a
    change that cannot be read is said in the thread."""
    options = CheckOptions(svc.settings.policy_dir, svc.settings.kubernetes_version)
    try:
        return proposed_change(
            checkout.root, session.base_commit, request=session.request,
            latest=session.latest_proposal, mask=mask, differ=svc.differ, checks=options,
            tree=tree,
        )  # fmt: skip
    except GitError as exc:
        key = session.key
        svc.chat.post(
            key.channel, f":warning: could not read the changes: {exc}", thread_ts=key.thread_ts
        )
        return None


def _joined(*texts: str) -> str:
    return "\n".join(t for t in texts if t)


def teach_mask(svc: Services, session: Session, mask: SecretMask) -> None:
    """Teach a mask this replica has just made (after a restart, on another replica, or once
    the thread's mask was dropped) every Secret value the session can render, as a turn's first
    tool call does (tools/mask_teacher.py), before anything of the session is posted: the
    stored proposal, its title and the request may carry them. Values never go to the store,
    so rendering is the only way."""
    if not session.base_commit:
        return  # no checkout was ever made, so nothing was ever rendered or shown
    try:
        checkout = svc.workspaces.open(session)
        svc.differ.learn_secrets(checkout.root, session.base_commit, mask)
    except (TankaError, ToolError, OSError, WorkspaceError) as exc:
        # The proposal's own render fails the same way and says so in the thread; what the mask
        # cannot learn here, no render of this change could show either.
        log.warning("the Secret values of %s could not be learned again: %s", session.key.id, exc)


class _Changes:
    """The checkout's change and its checks, computed once per state of the working tree."""

    def __init__(
        self, svc: Services, session: Session, checkout: Checkout, mask: SecretMask, request: str
    ) -> None:
        self.svc, self.session, self.checkout, self.mask = svc, session, checkout, mask
        self.request = request
        self._tree: str | None = None
        self._change: Change | None = None

    def current(self) -> Change | None:
        try:
            tree: str | None = working_tree_id(self.checkout.root)
        except ToolError:
            tree = None
        if tree is None or tree != self._tree:
            self._change = new_change(self.svc, self.session, self.checkout, self.mask, tree)
            self._tree = tree
        return self._change

    def describe(self) -> ReviewInput | None:
        current = self.current()
        return review_input(self.request, *current) if current is not None else None


def propose(
    svc: Services,
    session: Session,
    proposal: Proposal,
    diff: RevisionDiff | None,
    *,
    review: Review | None = None,
) -> None:
    """Post the proposal: snippets for long diffs first, then the message people react on."""
    key = session.key
    envs = diff.envs if diff is not None else []
    groups = group_envs(envs)  # environments with the same rendered diff are shown once
    # Approval rules match every environment the importers analysis found, changed or not.
    affected = (
        tuple(sorted({e.env.split(" [", 1)[0] for e in diff.envs})) if diff is not None else None
    )
    needs = policy.requirements(
        affected, svc.settings.teams.approval_rules,
        approvers=svc.settings.approvers, allow_self=svc.settings.allow_self_approval,
    )  # fmt: skip
    proposal = proposal.model_copy(
        update={
            "envs": tuple(e.env for e in envs if e.has_changes),
            # The per-environment summary goes into the commit message and the PR body.
            "summary": grouped_summary(groups) if diff is not None else "",
            "affected": affected,
            "review": review.text() if review is not None else "",
        }
    )
    rendered = grouped_text(groups) if diff is not None else ""
    message = blocks.proposal(
        proposal,
        number=len(session.proposals) + 1,
        envs=envs,
        rendered=rendered,
        emoji=svc.settings.approve_emoji,
        # The guardrails that refuse its approval now (freezes, failing policies, holds).
        approvals=_joined(
            policy.needs_text(needs, session.requester),
            guard_gate.proposal_note(svc, session, proposal),
        ),
    )
    for snippet in message.snippets:
        svc.chat.upload(key.channel, key.thread_ts, filename=snippet.filename,
                        title=snippet.title, content=snippet.content)  # fmt: skip
    shown = [*message.blocks, interactive.proposal_actions()]  # Approve and Cancel
    ts = svc.chat.post(key.channel, message.text, thread_ts=key.thread_ts, blocks=shown)
    svc.store.index_message(key.channel, ts, key, svc.settings.session_ttl)
    proposal_message.remember(svc, session, ts, shown)
    previous = session.latest_proposal
    if previous is not None and not previous.approved_by:
        line = proposal_message.superseded_line(len(session.proposals) + 1)
        proposal_message.resolve(svc, session, previous, line)
    session.proposals.append(proposal.model_copy(update={"ts": ts, "created": svc.clock()}))
    svc.audit.record(key.channel, key.thread_ts, session.requester, "proposal", {
        "number": len(session.proposals), "ts": ts, "diff_hash": proposal.diff_hash,
        "base_commit": proposal.base_commit, "files": proposal.files,
        "environments": list(proposal.envs), "affected": affected,
        "needs": [{"approvers": r.approvers, "min_approvals": r.min_approvals,
                   "allow_self": r.allow_self, "rule": r.label} for r in needs],
    })  # fmt: skip
    kept = session.proposals[-1]  # the web view's history: what the proposal showed
    svc.audit.keep("proposal", key, str(len(session.proposals)), {
        "number": len(session.proposals), "ts": ts, "created": kept.created,
        "title": kept.title, "summary": kept.summary, "envs": list(kept.envs),
        "files": list(kept.files), "diff": proposal.diff, "rendered": rendered,
        "checks": proposal.checks, "note": proposal.note, "review": kept.review,
        "diff_hash": kept.diff_hash, "base_commit": kept.base_commit,
        "approvals": policy.needs_text(needs, session.requester),
    })  # fmt: skip


def _save(svc: Services, session: Session) -> None:
    session.updated = svc.clock()
    svc.sessions.put(session)
