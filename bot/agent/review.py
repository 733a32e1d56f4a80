"""The reviewer: a read-only sub-agent looks at a turn's change before anyone may approve it.

    reviewed = run_reviewed_turn(agent, history, prompt, ctx, describe=..., cancel=...)
    reviewed.result   # the turn (and its revision, if there was one), usage of all of it
    reviewed.review   # what the reviewer found in the final state, or None (no change, disabled)

After a turn that changed files, the front end's `describe()` gives the request, the git diff,
the rendered diff and the tanka_check findings; a sub-agent with the read-only review tools
(tools/subagent_port.py) checks them and ends with a verdict line. On "problems" the agent gets the
findings and may revise once; if the revision changed files the reviewer looks again, so the
proposal shows the final state and the review of it. The reviewer counts in the turn's budget and
its progress shows as "review: <tool> ..." like any sub-agent's.

It lives in the agent core because both front ends (bot.handlers.turn, bot.chat) run it the same
way; only `describe()` differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from bot.agent.agent import Agent, TurnResult
from bot.agent.budget import TurnBudget
from bot.agent.cancel import CancelToken
from bot.agent.events import Observer, ignore
from bot.agent.messages import Message
from tools import linear_re
from tools.context import ToolContext
from tools.errors import ToolError
from tools.linear_re import SPACE
from tools.subagent_port import REVIEW_TOOLS, SubAgentTask

REVIEW_MAX_STEPS = 15
PART_LIMIT = 24_000  # characters of each diff shown to the reviewer; it can read more with tools

REVIEW_PROMPT = """\
You review a change to a Tanka/Jsonnet Kubernetes repository before a person approves it. An \
AI agent made the change for the request below. You have read-only tools; you cannot change \
anything.

Check, in this order:
1. Does the change do what was asked, no more and no less? Flag edits unrelated to the request \
and environments changed that the request did not mention (especially production).
2. Is the rendered result right? Read the rendered-manifest diff: wrong values, resources \
removed by accident, selectors or labels changed, images without a pinned tag.
3. The tanka_check findings: every error is a problem.
4. The repository's conventions: compare with similar environments or libraries \
(file_search, file_read) when something looks unusual.

Be brief and concrete: one bullet per finding, naming the file or environment. Do not restate \
the diff. Never quote Secret values or credentials.

End with exactly one line:
VERDICT: OK          (nothing that should block approval; minor remarks allowed above)
VERDICT: PROBLEMS    (at least one finding that should be fixed before approval)
"""

REVISE_PROMPT = """\
A read-only reviewer checked your change and reported problems:

{findings}

Fix the findings that are right (you may disagree with one: say why), validate again, and end \
with a short summary of the final change."""

# RE2, linear: under re, the `\s*` on either side of `\**` split a run of blank lines every way at
# every line start (800 newlines: 1 s, cubic). SPACE and the word test keep re's matches.
_VERDICT = linear_re.compile(
    rf"(?im)^{SPACE}*\**{SPACE}*VERDICT{SPACE}*:{SPACE}*\**{SPACE}*(OK|PROBLEMS)(?:[^\pL\pN_\n]|$).*$"
)

Verdict = Literal["ok", "problems", "unclear", "unavailable"]


@dataclass(frozen=True, slots=True)
class ReviewInput:
    request: str
    git_diff: str
    rendered_diff: str
    checks: str = ""  # tanka_check's findings, or why there are none


@dataclass(frozen=True, slots=True)
class Review:
    verdict: Verdict
    findings: str  # the reviewer's text without the verdict line (or why there is no review)
    reviewer: str = ""  # the sub-agent's id
    revised: bool = False  # the agent revised the change after an earlier review
    note: str = ""  # e.g. "the agent answered the review without changing files"

    @property
    def headline(self) -> str:
        head = {
            "ok": "no blocking problems found",
            "problems": "problems found",
            "unclear": "the reviewer gave no verdict",
            "unavailable": "not available",
        }[self.verdict]
        if self.revised:
            head += " (after one revision)"
        return head

    def text(self) -> str:
        """Headline, then findings: for the proposal's "Review" section and the terminal."""
        body = "\n".join(part for part in (self.note, self.findings.strip()) if part)
        return f"{self.headline}\n{body}".rstrip()


@dataclass(frozen=True, slots=True)
class ReviewedTurn:
    result: TurnResult
    review: Review | None


def _clip(text: str, limit: int = PART_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters; use git_diff/tanka_diff]"


def review_request(change: ReviewInput) -> str:
    parts = [
        f"The request:\n{change.request.strip()}",
        f"The git diff:\n```diff\n{_clip(change.git_diff)}\n```",
        f"The rendered-manifest diff:\n```diff\n{_clip(change.rendered_diff or '(none)')}\n```",
    ]
    if change.checks.strip():
        parts.append(f"tanka_check findings:\n{_clip(change.checks, 8000)}")
    return "\n\n".join(parts)


def parse_review(text: str) -> tuple[Verdict, str]:
    """The verdict of the last VERDICT line, and the findings without it."""
    matches = list(_VERDICT.finditer(text))
    if not matches:
        return "unclear", text.strip()
    last = matches[-1]
    verdict: Verdict = "ok" if last.group(1).upper() == "OK" else "problems"
    findings = (text[: last.start()] + text[last.end() :]).strip()
    return verdict, findings


def review_change(
    agent: Agent,
    ctx: ToolContext,
    change: ReviewInput,
    *,
    budget: TurnBudget,
    observer: Observer = ignore,
    cancel: CancelToken | None = None,
) -> Review:
    """One review by a read-only sub-agent; never raises for the reviewer's own failures."""
    scope = agent.subagents(ctx, budget=budget, observer=observer, cancel=cancel)
    task = SubAgentTask(
        "review", REVIEW_PROMPT, review_request(change), tools=REVIEW_TOOLS,
        max_steps=REVIEW_MAX_STEPS,
    )  # fmt: skip
    try:
        report = scope.run(task)
    except ToolError as exc:
        return Review("unavailable", str(exc))
    finally:
        scope.close()
    if not report.ok:
        return Review(
            "unavailable",
            f"the review stopped early: {report.error_kind}: {report.error}",
            reviewer=report.id,
        )
    verdict, findings = parse_review(report.text)
    return Review(verdict, findings, reviewer=report.id)


def run_reviewed_turn(
    agent: Agent,
    history: Sequence[Message],
    prompt: str | Message,
    ctx: ToolContext,
    *,
    describe: Callable[[], ReviewInput | None],
    observer: Observer = ignore,
    cancel: CancelToken | None = None,
    enabled: bool = True,
) -> ReviewedTurn:
    """A turn, the review of its change, and at most one revision (all on one budget)."""
    cancel = cancel or CancelToken()
    budget = agent.new_budget()
    first = agent.run_turn(history, prompt, ctx, observer=observer, cancel=cancel, budget=budget)
    change = describe() if enabled and first.ok else None
    if change is None:
        return ReviewedTurn(first, None)
    review = review_change(agent, ctx, change, budget=budget, observer=observer, cancel=cancel)
    if review.verdict != "problems" or cancel.is_set():
        return ReviewedTurn(_totals(first, budget), review)
    revise = REVISE_PROMPT.format(findings=review.findings or "(no details given)")
    second = agent.run_turn(
        [*history, *first.messages], revise, ctx, observer=observer, cancel=cancel, budget=budget
    )
    result = TurnResult(
        text=second.text,
        messages=(*first.messages, *second.messages),
        calls=second.calls,
        usage=second.usage,
        steps=second.steps,
        tool_calls=first.tool_calls + second.tool_calls,
        stop_reason=second.stop_reason,
        error=second.error,
    )
    if not second.ok:
        note = "the revision stopped early; this is the review of the change before it"
        return ReviewedTurn(result, replace(review, note=note))
    final = describe()
    if final is None:
        return ReviewedTurn(result, None)  # the revision took the whole change back
    if final == change:
        note = "the agent answered the review without changing files"
        return ReviewedTurn(result, replace(review, note=note))
    again = review_change(agent, ctx, final, budget=budget, observer=observer, cancel=cancel)
    return ReviewedTurn(_totals(result, budget), replace(again, revised=True))


def _totals(result: TurnResult, budget: TurnBudget) -> TurnResult:
    """`result` with the usage of everything run on `budget` (reviews included)."""
    return replace(result, calls=tuple(budget.calls), usage=budget.usage, steps=budget.steps)
