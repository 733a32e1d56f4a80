"""The pull request after approval: GitHub's news in the thread, and the context of a fix turn.

`link` records, when an approval opens a pull request, which thread it belongs to (the store's
pull request map) and starts its state. `handle` applies one webhook event to that state under a
short store lock (events for one pull request arrive concurrently, on any replica) and tells the
thread: the CI status message is posted once per head commit and edited in place; reviews,
comments, merges and closes are posted; a new conflict with the base branch is reported once.
Events on pull requests the bot did not open never get here (no thread is linked). A commit
status names no pull request: `pull_request_events` finds the pull requests whose head branch
it is reported on, from the branch each approval pushed (recorded by `link`).

`fix_context` gives the next turn after a failing CI run or a change request what it needs: the
failing checks' output from the check-runs API (title, summary, text; head and tail kept) and the
reviews and comments since the last fix.

Anyone who can see a pull request can comment on it, so words from GitHub steer the agent only
when their author can push to the repository (GitHub's collaborator permission: admin or write,
asked through the code host, `untrusted`); anyone else's are shown in the thread as quoted,
untrusted text and never reach a turn. When that cannot be checked, the words are untrusted. All
GitHub text is escaped for Slack, so it cannot ping the channel or pose as a teammate.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Literal, Protocol, runtime_checkable

from bot.domain.pr_events import (
    CheckRunUpdate,
    CommentAdded,
    CommitStatus,
    GitHubEvent,
    PullRef,
    PullRequestClosed,
    PullRequestEvent,
    PullRequestUpdated,
    ReviewSubmitted,
)
from bot.domain.pr_state import (
    Feedback,
    PullRequestState,
    closed_text,
    comment_text,
    conflict_text,
    review_text,
)
from bot.domain.sessions import Session
from bot.domain.thread import ThreadKey
from bot.errors import ServiceUnavailable, UserError
from bot.github.code_host import CheckRunInfo
from bot.github.errors import CodeHostError
from bot.github.repo_slug import resolve_repo
from bot.services import Services
from tools.registry import truncate

log = logging.getLogger(__name__)

LINK_TTL = 90 * 24 * 3600.0  # pull requests stay open longer than sessions stay idle
LOCK_TTL = 30.0
LOCK_WAIT = 15.0
CHECK_HEAD = 1500  # bytes of a failing check's output kept from its start ...
CHECK_TAIL = 3000  # ... and from its end, where test runners print their failures
CHECKS_SHOWN = 5


class PullRequestLocked(ServiceUnavailable):
    """Another worker held the pull request's state for too long; the event is dropped."""

    dependency = "github"


@runtime_checkable
class CheckRuns(Protocol):
    """What a fix turn reads from the code host (bot.github.code_host.GitHubCodeHost)."""

    def check_runs(self, ref: str) -> list[CheckRunInfo]: ...


@runtime_checkable
class Permissions(Protocol):
    """Who may steer from GitHub (bot.github.code_host.GitHubCodeHost)."""

    def permission(self, login: str) -> str: ...


TRUSTED_PERMISSIONS = frozenset({"admin", "write"})  # GitHub's: admin, write, read or none


def repo_name(svc: Services) -> str | None:
    """`owner/name` of the configured repository in lower case, or None when unknown."""
    try:
        owner, name = resolve_repo(svc.settings.github_repo, svc.settings.repo_url)
    except UserError:
        return None
    return f"{owner}/{name}".lower()


def thread_of(svc: Services, event: PullRequestEvent) -> ThreadKey | None:
    return svc.store.thread_of_pull_request(event.pr.repo, event.pr.number)


def pull_request_events(svc: Services, event: GitHubEvent) -> list[PullRequestEvent]:
    """`event` itself, or a commit status as a check of each pull request the bot opened from
    one of the branches it was reported on ([] when none: not a branch the bot pushed)."""
    if not isinstance(event, CommitStatus):
        return [event]
    numbers = set()
    for branch in event.branches:
        raw = svc.store.get_blob(_branch_blob(event.repo, branch))
        if raw is not None and raw.decode().isdigit():
            numbers.add(int(raw.decode()))
    return [event.as_check(PullRef(event.repo, number)) for number in sorted(numbers)]


def link(svc: Services, session: Session, number: int, url: str, branch: str) -> None:
    """Remember that pull request `number`, opened from `branch`, belongs to the session's
    thread."""
    repo = repo_name(svc)
    if repo is None:
        return
    svc.store.link_pull_request(repo, number, session.key, LINK_TTL)
    svc.store.put_blob(_branch_blob(repo, branch), str(number).encode(), LINK_TTL)
    with _locked(svc, repo, number):
        state = _load(svc, repo, number) or PullRequestState(
            repo=repo, number=number, thread=session.key.id
        )
        state.url, state.thread, state.closed = url, session.key.id, False
        _save(svc, state)


def handle(svc: Services, key: ThreadKey, event: PullRequestEvent) -> None:
    """Apply `event` and tell the thread; `svc.chat` must already mask (the runner wraps it)."""
    repo, number = event.pr.repo, event.pr.number
    why = ""  # why the words of a review or comment may not reach the agent
    if isinstance(event, ReviewSubmitted):
        why = untrusted(svc, event.reviewer)
    elif isinstance(event, CommentAdded):
        why = untrusted(svc, event.author)
    with _locked(svc, repo, number):
        state = _load(svc, repo, number) or PullRequestState(
            repo=repo, number=number, thread=key.id
        )
        if isinstance(event, CheckRunUpdate):
            if state.apply_check(event):
                _show_ci(svc, key, state)
        elif isinstance(event, ReviewSubmitted):
            if not why:  # an untrusted change request asks for no fix either
                state.apply_review(event)
            if event.body.strip() or event.state != "commented":
                _post(svc, key, review_text(number, event, untrusted=why))
        elif isinstance(event, CommentAdded):
            if not why:
                state.apply_comment(event)
            _post(svc, key, comment_text(number, event, untrusted=why))
        elif isinstance(event, PullRequestClosed):
            state.apply_closed(event)
            _post(svc, key, closed_text(number, event))
        elif isinstance(event, PullRequestUpdated) and state.apply_update(event):
            _post(svc, key, conflict_text(number))
        _save(svc, state)


def untrusted(svc: Services, login: str) -> str:
    """Why GitHub user `login`'s words may not reach the agent, or "" when they may: they can
    push to the repository. Fails closed: anything that cannot be checked is a reason."""
    host = svc.code_host()
    if not isinstance(host, Permissions):
        return "GitHub credentials are not configured, so its author could not be checked"
    try:
        permission = host.permission(login)
    except CodeHostError as exc:
        return f"whether {login} may push to the repository could not be checked ({exc})"
    finally:
        close = getattr(host, "close", None)
        if callable(close):
            close()
    if permission in TRUSTED_PERMISSIONS:
        return ""
    return f"{login} cannot push to the repository"


def ended(svc: Services, session: Session) -> Literal["merged", "closed"] | None:
    """Whether the session's pull request was merged or closed, as GitHub's events told us."""
    pr = session.pull_request
    repo = repo_name(svc)
    if pr is None or repo is None:
        return None
    state = _load(svc, repo, pr.number)  # a read: events write it whole, under their lock
    if state is None or not state.closed:
        return None
    return "merged" if state.merged else "closed"


def fix_context(svc: Services, session: Session, mask: Callable[[str], str]) -> str:
    """What the next turn must know about its pull request, or "" when nothing needs a fix."""
    pr = session.pull_request
    repo = repo_name(svc)
    if pr is None or repo is None:
        return ""
    with _locked(svc, repo, pr.number):
        state = _load(svc, repo, pr.number)
        if state is None or not state.needs_fix:
            return ""
        runs = _failing_runs(svc, state) if state.outcome() == "failed" else None
        text = context_text(state, runs)
        state.attended, state.feedback = state.attention, []
        _save(svc, state)
    return mask(text)


def context_text(state: PullRequestState, runs: Sequence[CheckRunInfo] | str | None) -> str:
    """The fix turn's preamble: failing checks (runs, or why they could not be read), feedback."""
    lines = [
        f"[Pull request #{state.number} ({state.url}), opened from this thread, needs a fix. "
        "Change the files so the failing checks pass and the review is addressed; once "
        "approved, the fix is pushed as a new commit to the same pull request.]"
    ]
    if runs is not None:
        lines.append(f"\nFailing checks on commit {state.head_sha[:12]}:")
        if isinstance(runs, str):
            lines.append(f"(their output could not be read: {runs}; names: "
                         f"{', '.join(state.failing())})")  # fmt: skip
        for run in list(runs)[:CHECKS_SHOWN] if not isinstance(runs, str) else ():
            output = "\n".join(p for p in (run.title, run.summary, run.text) if p.strip())
            cut = truncate(output or "(no output)", head=CHECK_HEAD, tail=CHECK_TAIL,
                           hint=f"see {run.url or 'the check run'}")  # fmt: skip
            lines.append(f"\n### check `{run.name}`: {run.conclusion}\n{cut}")
        # Commit statuses have no output to read: their description and link are all there is.
        read = set() if isinstance(runs, str) else {run.name for run in runs}
        unread = [n for n in state.failing() if n not in read]
        if isinstance(runs, str):  # named above already; a status's description still helps
            unread = [n for n in unread if state.checks[n].summary.strip()]
        for name in unread[:CHECKS_SHOWN]:
            check = state.checks[name]
            seen = f" (see {check.url})" if check.url else ""
            lines.append(f"\n### check `{name}`: {check.conclusion}\n"
                         f"{check.summary.strip() or '(no description)'}{seen}")  # fmt: skip
    for item in state.feedback:
        lines.append("\n" + _feedback_line(item))
    lines.append("\n---\n")
    return "\n".join(lines)


def _feedback_line(item: Feedback) -> str:
    if item.state:
        what = {"changes_requested": "requested changes", "approved": "approved"}.get(
            item.state, "reviewed"
        )
        head = f"Review by {item.author} ({what}):"
    else:
        line = f" line {item.line}" if item.line else ""
        where = f" on {item.path}{line}" if item.path else ""
        head = f"Comment by {item.author}{where}:"
    return f"{head}\n{item.body.strip() or '(no text)'}"


def _failing_runs(svc: Services, state: PullRequestState) -> list[CheckRunInfo] | str:
    host = svc.code_host()
    if not isinstance(host, CheckRuns):
        return "GitHub credentials are not configured"
    try:
        runs = host.check_runs(state.head_sha)
    except CodeHostError as exc:
        return str(exc)
    finally:
        close = getattr(host, "close", None)
        if callable(close):
            close()
    failing = set(state.failing())
    return [r for r in runs if r.name in failing and r.status == "completed"]


def _show_ci(svc: Services, key: ThreadKey, state: PullRequestState) -> None:
    text = state.ci_text()
    if state.ci_ts is None:
        state.ci_ts = svc.chat.post(key.channel, text, thread_ts=key.thread_ts)
        svc.store.index_message(key.channel, state.ci_ts, key, svc.settings.session_ttl)
    else:
        svc.chat.update(key.channel, state.ci_ts, text)


def _post(svc: Services, key: ThreadKey, text: str) -> None:
    ts = svc.chat.post(key.channel, text, thread_ts=key.thread_ts)
    svc.store.index_message(key.channel, ts, key, svc.settings.session_ttl)


def _blob(repo: str, number: int) -> str:
    return f"pull-request:{repo}#{number}"


def _branch_blob(repo: str, branch: str) -> str:
    return f"pull-request-branch:{repo}:{branch}"


def _load(svc: Services, repo: str, number: int) -> PullRequestState | None:
    raw = svc.store.get_blob(_blob(repo, number))
    if raw is None:
        return None
    try:
        return PullRequestState.model_validate_json(raw)
    except ValueError:
        log.warning("stored state of %s#%d is unreadable; starting afresh", repo, number)
        return None


def _save(svc: Services, state: PullRequestState) -> None:
    data = state.model_dump_json().encode()
    svc.store.put_blob(_blob(state.repo, state.number), data, LINK_TTL)


@contextmanager
def _locked(svc: Services, repo: str, number: int) -> Iterator[None]:
    name, owner = f"{_blob(repo, number)}:lock", uuid.uuid4().hex
    deadline = time.monotonic() + LOCK_WAIT
    while not svc.store.acquire(name, owner, LOCK_TTL):
        if time.monotonic() >= deadline:
            raise PullRequestLocked(f"the state of {repo}#{number} stayed locked")
        time.sleep(0.05)
    try:
        yield
    finally:
        svc.store.release(name, owner)
