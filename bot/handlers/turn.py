"""A turn: the agent works on the session's checkout; then the answer and, if files changed, a
proposal with the git diff and the rendered-manifest diff.

Runs inside the thread's lease. Edits are saved to the store after every writing tool call and at
the end, so neither a crash nor a cancel loses them.
"""

from __future__ import annotations

import logging
import time

from bot.agent.agent import TurnResult
from bot.agent.cancel import CancelToken
from bot.agent.review import Review, ReviewInput, run_reviewed_turn
from bot.agent.trim import trim_history
from bot.domain.alerts import quiet_broadcasts
from bot.domain.prices import dollars, turn_cost
from bot.domain.proposal import Proposal
from bot.domain.sessions import Session
from bot.git.checkout import Checkout
from bot.handlers import guard_gate, proposal_message
from bot.handlers.progress import CONTEXT_WINDOWS, Progress
from bot.policy import rules as policy
from bot.publish.pr_text import pr_title
from bot.publish.proposal import make_proposal
from bot.services import Services
from bot.slack import blocks, interactive
from bot.workspace.workspaces import WorkspaceError
from tools.context import ToolContext
from tools.errors import ToolError
from tools.git import working_tree_id
from tools.gitrun import GitError
from tools.mask_teacher import MaskTeacher
from tools.redaction import SecretMask
from tools.tanka.check import CheckOptions, CheckSetupError, check_environments
from tools.tanka.check.findings import Level, Source
from tools.tanka.check.report import CheckReport
from tools.tanka.diff.groups import group_envs, grouped_summary, grouped_text
from tools.tanka.diff.revision import RevisionDiff, rendered_change
from tools.tanka.errors import TankaError

log = logging.getLogger(__name__)

CHECK_TEXT_LIMIT = 1500


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

    provider = svc.agent.provider
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
    conversation = session.load_conversation()
    window = CONTEXT_WINDOWS.get(provider.name, 128_000)
    history = trim_history(conversation.history, int(window * 0.6))
    started = time.monotonic()
    # With TANKA_BOT_REVIEW, a change is reviewed (and may be revised once) before it is shown.
    changes = _Changes(svc, session, checkout, mask, prompt)
    reviewed = run_reviewed_turn(
        svc.agent, history, prompt, ctx, describe=changes.describe, observer=progress,
        cancel=cancel, enabled=svc.settings.review,
    )  # fmt: skip
    result = reviewed.result
    seconds = time.monotonic() - started
    conversation.history = (*history, *result.messages)
    conversation.record((), result.usage)
    session.store_conversation(conversation)
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


def _count(svc: Services, result: TurnResult, seconds: float) -> None:
    provider = svc.agent.provider
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
    cost = turn_cost(svc.settings.price_table, svc.agent.provider.model, tokens_in, u.output_tokens)
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


def new_change(
    svc: Services,
    session: Session,
    checkout: Checkout,
    mask: SecretMask,
    tree: str | None = None,
) -> tuple[Proposal, RevisionDiff | None] | None:
    """The checkout's change when it is new (differs from the base and the last proposal),
    with its checks, and its rendered diff beside it (None when it cannot be rendered: the
    proposal's note says why). `tree`: the working tree's id, when the caller just read it."""
    key = session.key
    try:
        proposal = make_proposal(
            checkout.root, session.base_commit, title=pr_title(session.request), tree=tree
        )
    except GitError as exc:
        svc.chat.post(
            key.channel, f":warning: could not read the changes: {exc}", thread_ts=key.thread_ts
        )
        return None
    latest = session.latest_proposal
    # The same diff on another base commit (after `rebase`) is a new proposal: an approval binds
    # both (bot.publish.proposal).
    if proposal.empty or (
        latest is not None
        and (latest.diff_hash, latest.base_commit) == (proposal.diff_hash, proposal.base_commit)
    ):
        return None
    try:
        diff = rendered_change(checkout.root, session.base_commit, mask, differ=svc.differ)
    except (TankaError, ToolError, OSError) as exc:
        return proposal.model_copy(
            update={"note": f":warning: rendered diff not available: {exc}"}
        ), None
    checks, denied = _checks(svc, checkout, diff)
    return proposal.model_copy(update={"checks": checks, "denied": denied}), diff


def _checks(svc: Services, checkout: Checkout, diff: RevisionDiff) -> tuple[str, tuple[str, ...]]:
    """Schema and policy findings for the environments that render differently, and the policy
    rules that denied (each blocks approval until waived: bot.guards.waivers)."""
    # Labels of inline environments end in " [name]"; the check takes the directory.
    envs = sorted({e.env.split(" [", 1)[0] for e in diff.envs if e.has_changes})
    if not envs:
        return "", ()
    options = CheckOptions(svc.settings.policy_dir, svc.settings.kubernetes_version)
    try:
        report = check_environments(checkout.root, envs, options, renders=diff.worktree)
    except CheckSetupError as exc:
        return f":warning: checks not run: {exc}", ()
    except (TankaError, ToolError, OSError) as exc:
        return f":warning: checks failed: {exc}", ()
    mark = ":x:" if report.failed else ":white_check_mark:"
    return f"{mark} {report.text(limit=CHECK_TEXT_LIMIT)}", denied_rules(report)


def denied_rules(report: CheckReport) -> tuple[str, ...]:
    """The policy rules that denied (`deny`/`violation`): each blocks approval until waived."""
    policy_errors = (f for f in report.findings if f.source == Source.POLICY)
    return tuple(sorted({f.rule for f in policy_errors if f.level == Level.ERROR and f.rule}))


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
        self._change: tuple[Proposal, RevisionDiff | None] | None = None

    def current(self) -> tuple[Proposal, RevisionDiff | None] | None:
        try:
            tree: str | None = working_tree_id(self.checkout.root)
        except ToolError:
            tree = None
        if tree is None or tree != self._tree:
            self._change = new_change(self.svc, self.session, self.checkout, self.mask, tree)
            self._tree = tree
        return self._change

    def describe(self) -> ReviewInput | None:
        change = self.current()
        return review_input(self.request, *change) if change is not None else None


def review_input(request: str, proposal: Proposal, diff: RevisionDiff | None) -> ReviewInput:
    """What the reviewer sub-agent reads of a proposal (bot.agent sits below bot.domain): the
    rendered diff grouped as the proposal shows it, so a change over thousands of generated
    environments reads as its few distinct diffs, not as the first of thousands of copies cut
    at the reviewer's limit (`tanka-bot chat` gives its reviewer the same text)."""
    rendered = grouped_text(group_envs(diff.envs)) if diff is not None else proposal.note
    return ReviewInput(request, proposal.diff, rendered, proposal.checks)


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
    message = blocks.proposal(
        proposal,
        number=len(session.proposals) + 1,
        envs=envs,
        rendered=grouped_text(groups) if diff is not None else "",
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


def _save(svc: Services, session: Session) -> None:
    session.updated = svc.clock()
    svc.sessions.put(session)
