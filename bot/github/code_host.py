"""GitHub as the code host: open, find and update the bot's pull requests, list open ones,
read a commit's check runs.

One PyGithub client per repository, pointed at GITHUB_API_URL (GitHub Enterprise works the
same). PyGithub's own retries and request spacing are off: the caller owns retries, using the
`retryable` flag and `retry_after` of the typed errors in `bot.github.errors`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TypeVar

from github import Github, GithubException
from github.CheckRun import CheckRun
from github.PullRequest import PullRequest

from bot.github.auth import (
    InstallationTokens,
    LiveTokenAuth,
    TokenSource,
)
from bot.github.errors import AlreadyExists, CodeHostError, RateLimited, Unavailable, translate
from bot.github.logs import SecretFilter
from bot.github.repo_slug import parse_repo_slug, resolve_repo
from tools.context import PullRequestInfo

__all__ = [
    "CheckRunInfo",
    "GitHubCodeHost",
    "PullRequestRef",
    "parse_repo_slug",
    "resolve_repo",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

# Enough for the agent to see what is in flight without flooding its context.
MAX_LISTED = 50
# Seconds before each retry of a call GitHub answered 5xx, did not answer, or rate-limited
# (its Retry-After wins when longer); past MAX_RETRY_WAIT the error goes back to the thread.
RETRY_DELAYS: tuple[float, ...] = (1.0, 2.0, 4.0)
MAX_RETRY_WAIT = 30.0


@dataclass(frozen=True, slots=True)
class CheckRunInfo:
    """One check run of a commit, with its output (GitHub caps each field at 65,535 chars)."""

    name: str
    status: str
    conclusion: str
    url: str
    title: str
    summary: str
    text: str


@dataclass(frozen=True, slots=True)
class PullRequestRef:
    number: int
    url: str
    head: str
    created: bool  # False when the branch already had an open pull request


class GitHubCodeHost:
    """The bot's view of one GitHub repository; implements tools.context.PullRequestSource."""

    def __init__(
        self,
        *,
        owner: str,
        name: str,
        tokens: TokenSource,
        api_url: str = "https://api.github.com",
        timeout: int = 15,
        write_interval: float | None = 1.0,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
    ) -> None:
        self.owner, self.name = owner, name
        self._tokens = tokens
        self._filter = SecretFilter(tokens.secrets)
        self._filter.install()
        self._github = Github(
            auth=LiveTokenAuth(tokens),
            base_url=api_url.rstrip("/"),
            timeout=timeout,
            retry=None,
            seconds_between_requests=None,
            # GitHub asks integrations to space out writes; a PR takes at most two.
            seconds_between_writes=write_interval,
            lazy=True,
            per_page=MAX_LISTED,
        )
        self._repo = self._github.get_repo(f"{owner}/{name}")
        # PyGithub keeps one connection object whose request()/getresponse() pair holds state
        # between calls, so concurrent turns must not share it unserialised.
        self._lock = threading.RLock()
        self.retry_delays = retry_delays

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def open_pull_request(
        self, head: str, base: str, title: str, body: str, draft: bool = False
    ) -> PullRequestRef:
        """Open a PR from `head` into `base`; if one is already open for `head`, return it."""
        action = f"open a pull request from {head} into {base} on {self.full_name}"
        try:
            pr = self._call(
                action,
                lambda: self._repo.create_pull(
                    base=base, head=head, title=title, body=body, draft=draft
                ),
            )
        except AlreadyExists:
            existing = self.find_pull_request(head)
            if existing is None:
                raise
            log.info("pull request #%d already open for %s", existing.number, head)
            return existing
        return PullRequestRef(pr.number, pr.html_url, head, created=True)

    def find_pull_request(self, head: str) -> PullRequestRef | None:
        """The open pull request whose head is branch `head` of this repository, if any."""
        pulls = self._repo.get_pulls(state="open", head=f"{self.owner}:{head}")
        found = self._call(
            f"look up the pull request of branch {head} on {self.full_name}",
            lambda: next(iter(pulls), None),
        )
        if found is None:
            return None
        return PullRequestRef(found.number, found.html_url, head, created=False)

    def update_pull_request_body(self, number: int, body: str) -> None:
        pr = self._repo.get_pull(number)
        self._call(
            f"update the description of pull request #{number} on {self.full_name}",
            lambda: pr.edit(body=body),
            missing=f"pull request #{number}",
        )

    def open_pull_requests(self) -> Sequence[PullRequestInfo]:
        """Open PRs, most recently updated first, at most MAX_LISTED."""
        pulls = self._repo.get_pulls(state="open", sort="updated", direction="desc")
        found = self._call(
            f"list the open pull requests of {self.full_name}",
            lambda: list(islice(pulls, MAX_LISTED)),
        )
        return [_info(pr) for pr in found]

    def check_runs(self, ref: str) -> list[CheckRunInfo]:
        """The check runs of commit `ref` (GET /repos/{owner}/{repo}/commits/{ref}/check-runs)."""
        runs = self._repo.get_commit(ref).get_check_runs()
        found = self._call(
            f"list the check runs of {ref[:12]} on {self.full_name}",
            lambda: list(islice(runs, MAX_LISTED)),
            missing=f"commit {ref[:12]}",
        )
        return [_check_run(run) for run in found]

    def permission(self, login: str) -> str:
        """GitHub user `login`'s permission on the repository: admin, write, read or none
        (GET /repos/{owner}/{repo}/collaborators/{username}/permission; teams count)."""
        action = f"check the permission of {login} on {self.full_name}"
        try:
            found = self._call(
                action,
                lambda: self._repo.get_collaborator_permission(login),
                missing=f"GitHub user {login}",
            )
        except (KeyError, TypeError):  # a reply without the field
            raise CodeHostError(f"could not {action}: GitHub's answer had no permission") from None
        return found if isinstance(found, str) else "none"

    def token_for_push(self) -> str:
        """The current token (fresh if it was about to expire) for git's askpass helper."""
        return self._tokens.token()

    def close(self) -> None:
        self._filter.uninstall()
        self._github.close()
        if isinstance(self._tokens, InstallationTokens):
            self._tokens.close()

    def _call(self, action: str, request: Callable[[], T], *, missing: str = "") -> T:
        """`request`, tried again after a 5xx, a timeout or a rate limit (honouring GitHub's
        Retry-After) up to len(retry_delays) times; then the typed error.

        A retry never duplicates a pull request: a create whose answer was lost comes back as
        "already exists", and open_pull_request returns the existing one.
        """
        for attempt in range(len(self.retry_delays) + 1):
            try:
                return self._once(action, request, missing)
            except (Unavailable, RateLimited) as exc:
                if attempt == len(self.retry_delays):
                    raise
                wait = self.retry_delays[attempt]
                if isinstance(exc, RateLimited) and exc.retry_after is not None:
                    wait = max(wait, exc.retry_after)
                if wait > MAX_RETRY_WAIT:
                    raise
                log.warning("%s; trying again in %.1f s", exc, wait)
                time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _once(self, action: str, request: Callable[[], T], missing: str) -> T:
        try:
            with self._lock:
                return request()
        except CodeHostError:
            raise  # already typed (e.g. the installation token could not be fetched)
        except (GithubException, OSError, ValueError) as exc:
            error = translate(
                exc,
                action=action,
                missing=missing or f"repository {self.full_name}",
                secrets=self._tokens.secrets(),
            )
            raise error from None


def _check_run(run: CheckRun) -> CheckRunInfo:
    output = run.output
    return CheckRunInfo(
        name=run.name or "",
        status=run.status or "",
        conclusion=run.conclusion or "",
        url=run.html_url or "",
        title=(output.title if output else None) or "",
        summary=(output.summary if output else None) or "",
        text=(output.text if output else None) or "",
    )


def _info(pr: PullRequest) -> PullRequestInfo:
    return PullRequestInfo(
        number=pr.number,
        title=pr.title,
        head=pr.head.ref,
        base=pr.base.ref,
        author=pr.user.login if pr.user else "",
        url=pr.html_url,
        draft=bool(pr.draft),
        updated_at=pr.updated_at.isoformat() if pr.updated_at else "",
    )
