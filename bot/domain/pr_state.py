"""What the bot remembers about a pull request it opened: CI checks, feedback, conflicts. Pure.

GitHub's events (bot.inbound.github_webhook) are applied to a `PullRequestState`, which says what
the
thread should be told: the CI status message's text (one message per head commit, edited in
place), and whether a fix is wanted. A failing CI run or a review requesting changes raises
`attention`; the next turn in the thread takes the failing checks and the feedback into its
context and marks them `attended`.

Events can arrive out of order and more than once (GitHub retries, several replicas): a check
run never goes back to an earlier status, an older run of a check never replaces a newer one, and
a head commit the pull request has moved away from does not take the CI message back.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from bot.domain.pr_events import (
    FAILING,
    STATUS_ORDER,
    CheckRunUpdate,
    CommentAdded,
    PullRequestClosed,
    PullRequestUpdated,
    ReviewSubmitted,
)

FEEDBACK_KEPT = 30  # reviews and comments kept for the next fix turn
OLD_HEADS_KEPT = 20
QUOTE_LINES = 4
QUOTE_CHARS = 600

Outcome = Literal["pending", "failed", "passed"]


class CheckState(BaseModel):
    id: int
    status: str
    conclusion: str = ""
    url: str = ""
    summary: str = ""  # a commit status's description

    @property
    def done(self) -> bool:
        return self.status == "completed"

    @property
    def failed(self) -> bool:
        return self.done and self.conclusion in FAILING


class Feedback(BaseModel):
    author: str
    body: str
    state: str = ""  # a review's state; "" for a comment
    path: str = ""
    line: int | None = None
    url: str = ""


class PullRequestState(BaseModel):
    repo: str
    number: int
    thread: str  # the ThreadKey id of the thread that opened it
    url: str = ""
    head_sha: str = ""
    old_heads: list[str] = Field(default_factory=list)
    ci_ts: str | None = None  # the CI status message of `head_sha`
    checks: dict[str, CheckState] = Field(default_factory=dict)
    feedback: list[Feedback] = Field(default_factory=list)
    attention: int = 0  # raised by a failing CI run or a change request
    attended: int = 0  # the `attention` a fix turn has taken in
    conflicts: bool = False
    closed: bool = False
    merged: bool = False

    # --- events -------------------------------------------------------------------------------

    def new_head(self, sha: str) -> bool:
        """Move to head commit `sha`; False when it is the current one or an old one."""
        if not sha or sha == self.head_sha or sha in self.old_heads:
            return False
        if self.head_sha:
            self.old_heads = [*self.old_heads, self.head_sha][-OLD_HEADS_KEPT:]
        self.head_sha, self.ci_ts, self.checks = sha, None, {}
        return True

    def apply_check(self, update: CheckRunUpdate) -> bool:
        """Record a check run; True when the CI message should change."""
        if update.head_sha != self.head_sha and not self.new_head(update.head_sha):
            return False  # a run on a commit the pull request has moved away from
        was = self.checks.get(update.name)
        if was is not None and (
            update.check_id < was.id
            or (
                update.check_id == was.id
                and STATUS_ORDER.get(update.status, 0) < STATUS_ORDER.get(was.status, 0)
            )
        ):
            return False  # older news than what is known
        before = self.outcome()
        now = CheckState(id=update.check_id, status=update.status, conclusion=update.conclusion,
                         url=update.url, summary=update.summary)  # fmt: skip
        if was == now:
            return False
        self.checks[update.name] = now
        if self.outcome() == "failed" and before != "failed":
            self.attention += 1
        return True

    def apply_review(self, review: ReviewSubmitted) -> None:
        if review.state == "changes_requested":
            self.attention += 1
        if review.body.strip() or review.state == "changes_requested":
            self._remember(Feedback(author=review.reviewer, body=review.body,
                                    state=review.state, url=review.url))  # fmt: skip

    def apply_comment(self, comment: CommentAdded) -> None:
        self._remember(Feedback(author=comment.author, body=comment.body, path=comment.path,
                                line=comment.line, url=comment.url))  # fmt: skip

    def apply_update(self, update: PullRequestUpdated) -> bool:
        """Record a push or reopen; True when the pull request has just started to conflict."""
        self.new_head(update.head_sha)
        self.closed = self.merged = False
        started = update.conflicts and not self.conflicts
        self.conflicts = update.conflicts
        return started

    def apply_closed(self, closed: PullRequestClosed) -> None:
        self.closed, self.merged = True, closed.merged

    def _remember(self, item: Feedback) -> None:
        self.feedback = [*self.feedback, item][-FEEDBACK_KEPT:]

    # --- what to say --------------------------------------------------------------------------

    def outcome(self) -> Outcome:
        if any(not c.done for c in self.checks.values()) or not self.checks:
            return "pending"
        return "failed" if any(c.failed for c in self.checks.values()) else "passed"

    def failing(self) -> list[str]:
        return sorted(name for name, c in self.checks.items() if c.failed)

    @property
    def needs_fix(self) -> bool:
        return self.attention > self.attended

    def ci_text(self) -> str:
        sha = self.head_sha[:7]
        outcome = self.outcome()
        done = sum(1 for c in self.checks.values() if c.done)
        if outcome == "pending":
            head = (f":hourglass_flowing_sand: CI is running on `{sha}`: {done} of "
                    f"{len(self.checks)} check(s) done")  # fmt: skip
        elif outcome == "failed":
            names = ", ".join(f"`{escape(n)}`" for n in self.failing())
            head = (f":x: CI failed on `{sha}`: {names}. Reply in this thread and I'll look "
                    "at the failing output and propose a fix.")  # fmt: skip
        else:
            head = f":white_check_mark: CI passed on `{sha}` ({len(self.checks)} check(s))"
        lines = [f"• {_mark(c)} {_link(name, c.url)}" for name, c in sorted(self.checks.items())]
        return f"*Pull request #{self.number}* {head}\n" + "\n".join(lines[:40])


def _mark(check: CheckState) -> str:
    if not check.done:
        return ":hourglass_flowing_sand:"
    if check.failed:
        return f":x: ({check.conclusion})"
    return ":white_check_mark:" if check.conclusion == "success" else f"({check.conclusion})"


def _link(name: str, url: str) -> str:
    clean = escape(name).replace("|", "/")  # `|` would end the link's label
    return slack_link(url, clean) or f"`{clean}`"


def escape(text: str) -> str:
    """`text` with Slack's control characters escaped, so `<!channel>`, `<@U…>` and links
    written on GitHub show as typed and ping nobody."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_URL = re.compile(r"^https?://[^\s<>|]+$")


def slack_link(url: str, label: str) -> str | None:
    """`<url|label>` when `url` is a plain http(s) URL that cannot break out of Slack's link
    form (no space, `<`, `>` or `|`), else None. `label` must be escaped already."""
    return f"<{url.replace('&', '&amp;')}|{label}>" if _URL.match(url) else None


def quote(text: str) -> str:
    """The first lines of a review or comment as a Slack quote, escaped (`escape`)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    shown = "\n".join(lines[:QUOTE_LINES])
    if len(shown) > QUOTE_CHARS:
        shown = shown[: QUOTE_CHARS - 1] + "…"
    elif len(lines) > QUOTE_LINES:
        shown += "\n…"
    return "\n".join(f"> {escape(line)}" for line in shown.splitlines())


def untrusted_note(why: str) -> str:
    """The line under words from someone who may not steer the agent (bot.handlers.ci)."""
    return (
        f"\n:warning: Untrusted: {escape(why)}, so this is shown here only and never given to "
        "the agent."
    )


def review_text(number: int, review: ReviewSubmitted, *, untrusted: str = "") -> str:
    """The review as the thread shows it; `untrusted`: why its words never reach the agent."""
    verb = {
        "approved": ":white_check_mark: approved",
        "changes_requested": ":warning: requested changes on",
        "dismissed": "dismissed a review of",
    }.get(review.state, ":speech_balloon: reviewed")
    text = f"*{escape(review.reviewer)}* {verb} pull request #{number}"
    if review.url:
        text += f" (<{review.url}|review>)"
    if review.body.strip():
        text += "\n" + quote(review.body)
    if untrusted:
        return text + untrusted_note(untrusted)
    if review.state == "changes_requested":
        text += "\nReply in this thread and I'll work on the requested changes."
    return text


def comment_text(number: int, comment: CommentAdded, *, untrusted: str = "") -> str:
    """The comment as the thread shows it; `untrusted`: why its words never reach the agent."""
    where = f"pull request #{number}"
    if comment.path:
        line = f" line {comment.line}" if comment.line else ""
        where = f"`{escape(comment.path)}`{line} in #{number}"
    text = f":speech_balloon: *{escape(comment.author)}* commented on {where}"
    if comment.url:
        text += f" (<{comment.url}|comment>)"
    text += "\n" + quote(comment.body) if comment.body.strip() else ""
    return text + (untrusted_note(untrusted) if untrusted else "")


def closed_text(number: int, closed: PullRequestClosed) -> str:
    if closed.merged:
        return f":tada: Pull request #{number} was merged by *{escape(closed.by)}*."
    by = escape(closed.by)
    return f":no_entry_sign: Pull request #{number} was closed without merging by *{by}*."


def conflict_text(number: int) -> str:
    return (
        f":warning: The base branch moved and pull request #{number} now conflicts with it. "
        "Reply `rebase` and I'll rebase the change onto the new base and propose it again."
    )
