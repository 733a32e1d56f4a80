"""The checkout's change as a proposal: its diffs, its checks, and what the reviewer reads of it.

A turn (and `rebase`) asks for the change when the agent is done; the handler posts it. Nothing
here talks to Slack or reads the settings: the caller passes the checks' options and the
differ, and reports a change that cannot be read (GitError) in its own words.
"""

from __future__ import annotations

from pathlib import Path

from bot.agent.review import ReviewInput
from bot.domain.proposal import Proposal
from bot.publish.pr_text import pr_title
from bot.publish.proposal import make_proposal
from tools.errors import ToolError
from tools.redaction import SecretMask
from tools.tanka.check import CheckOptions, CheckSetupError, check_environments
from tools.tanka.check.findings import Checker, Level
from tools.tanka.check.report import CheckReport
from tools.tanka.diff.groups import group_envs, grouped_text
from tools.tanka.diff.revision import RevisionDiff, RevisionDiffer, rendered_change
from tools.tanka.errors import TankaError

CHECK_TEXT_LIMIT = 1500

Change = tuple[Proposal, RevisionDiff | None]


def proposed_change(
    root: Path,
    base_commit: str,
    *,
    request: str,
    latest: Proposal | None,
    mask: SecretMask,
    differ: RevisionDiffer,
    checks: CheckOptions,
    tree: str | None = None,
) -> Change | None:
    """The checkout's change when it is new (differs from the base and from `latest`, the last
    proposal), with its checks, and its rendered diff beside it (None when it cannot be
    rendered: the proposal's note says why). `tree`: the working tree's id, when the caller
    just read it. GitError when the changes cannot be read."""
    proposal = make_proposal(root, base_commit, title=pr_title(request), tree=tree)
    # The same diff on another base commit (after `rebase`) is a new proposal: an approval binds
    # both (bot.publish.proposal).
    if proposal.empty or (
        latest is not None
        and (latest.diff_hash, latest.base_commit) == (proposal.diff_hash, proposal.base_commit)
    ):
        return None
    try:
        diff = rendered_change(root, base_commit, mask, differ=differ)
    except (TankaError, ToolError, OSError) as exc:
        return proposal.model_copy(
            update={"note": f":warning: rendered diff not available: {exc}"}
        ), None
    found, denied = _checks(root, diff, checks)
    return proposal.model_copy(update={"checks": found, "denied": denied}), diff


def _checks(root: Path, diff: RevisionDiff, options: CheckOptions) -> tuple[str, tuple[str, ...]]:
    """Schema and policy findings for the environments that render differently, and the policy
    rules that denied (each blocks approval until waived: bot.guards.waivers)."""
    # Labels of inline environments end in " [name]"; the check takes the directory.
    envs = sorted({e.env.split(" [", 1)[0] for e in diff.envs if e.has_changes})
    if not envs:
        return "", ()
    try:
        report = check_environments(root, envs, options, renders=diff.worktree)
    except CheckSetupError as exc:
        return f":warning: checks not run: {exc}", ()
    except (TankaError, ToolError, OSError) as exc:
        return f":warning: checks failed: {exc}", ()
    mark = ":x:" if report.failed else ":white_check_mark:"
    return f"{mark} {report.text(limit=CHECK_TEXT_LIMIT)}", denied_rules(report)


def denied_rules(report: CheckReport) -> tuple[str, ...]:
    """The policy rules that denied (`deny`/`violation`): each blocks approval until waived."""
    policy_errors = (f for f in report.findings if f.source == Checker.POLICY)
    return tuple(sorted({f.rule for f in policy_errors if f.level == Level.ERROR and f.rule}))


def review_input(request: str, proposal: Proposal, diff: RevisionDiff | None) -> ReviewInput:
    """What the reviewer sub-agent reads of a proposal (bot.agent sits below bot.domain): the
    rendered diff grouped as the proposal shows it, so a change over thousands of generated
    environments reads as its few distinct diffs, not as the first of thousands of copies cut
    at the reviewer's limit (`tanka-bot chat` gives its reviewer the same text)."""
    rendered = grouped_text(group_envs(diff.envs)) if diff is not None else proposal.note
    return ReviewInput(request, proposal.diff, rendered, proposal.checks)
