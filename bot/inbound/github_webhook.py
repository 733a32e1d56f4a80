"""GitHub webhooks: the signature, and the events the bot reports turned into domain values.

`verify` checks `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with GITHUB_WEBHOOK_SECRET,
compared in constant time). `parse` is pure: an event name (`X-GitHub-Event`) and its decoded
JSON payload in, a list of domain values out (empty for events and actions the bot does not
report). The payload shapes are GitHub's documented webhook payloads: `check_run`, `status`,
`pull_request_review`, `pull_request_review_comment`, `issue_comment` and `pull_request`.

A `status` (the commit statuses API, which CI systems other than GitHub Actions often report
with) names no pull request, only the branches whose head the commit is; bot.handlers.ci maps
those branches to the pull requests the bot opened, and from then on it is a check like any other.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from bot.domain.pr_events import (
    CheckRunUpdate,
    CommentAdded,
    CommitStatus,
    GitHubEvent,
    PullRef,
    PullRequestClosed,
    PullRequestUpdated,
    ReviewSubmitted,
)
from bot.errors import UserError

SIGNATURE_PREFIX = "sha256="
# The events to subscribe the webhook to (README: "The webhook").
EVENTS = ("check_run", "status", "pull_request", "pull_request_review",
          "pull_request_review_comment", "issue_comment")  # fmt: skip


def signature(secret: bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body`."""
    return SIGNATURE_PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secret: bytes, body: bytes, header: str) -> bool:
    """Whether `header` is GitHub's signature of `body`; constant-time, False when missing."""
    if not secret or not header.startswith(SIGNATURE_PREFIX):
        return False
    return hmac.compare_digest(signature(secret, body).encode(), header.strip().encode())


class PayloadError(UserError, ValueError):
    """A payload without a field the event needs; the message names the field."""


def parse(event: str, payload: Mapping[str, Any]) -> list[GitHubEvent]:  # noqa: PLR0911 - one return per event reads best
    """The domain values of one delivery; [] for what the bot does not report."""
    if event not in EVENTS:
        return []  # e.g. the `ping` GitHub sends when the webhook is added
    action = str(payload.get("action", ""))
    repo = _str(_obj(payload, "repository"), "full_name").lower()
    if event == "check_run" and action in ("created", "completed", "rerequested"):
        return _check_run(repo, _obj(payload, "check_run"))
    if event == "status":
        return [_status(repo, payload)]
    if event == "pull_request_review" and action == "submitted":
        return [_review(repo, payload)]
    if event == "pull_request_review_comment" and action == "created":
        return [_review_comment(repo, payload)]
    if event == "issue_comment" and action == "created":
        issue = _obj(payload, "issue")
        if not isinstance(issue.get("pull_request"), Mapping):
            return []  # a comment on an issue, not on a pull request
        comment = _obj(payload, "comment")
        pr = PullRef(repo, _int(issue, "number"))
        body, url = _text(comment.get("body")), _text(comment.get("html_url"))
        return [CommentAdded(pr, _login(comment, "user"), body, url)]
    if event == "pull_request":
        return _pull_request(repo, action, payload)
    return []


# The object whose id names a delivery's news, per event (a commit status is its own object).
_REPLAY_OBJECTS = {
    "check_run": "check_run",
    "pull_request_review": "review",
    "pull_request_review_comment": "comment",
    "issue_comment": "comment",
}


def replay_key(event: str, payload: Mapping[str, Any]) -> str | None:
    """What a delivery reports, from the payload's own ids: the comment, review, check run or
    commit status with the action (and the object's state and update time, which tell a later
    change of it from a replay). A replay of a signed delivery under a new or empty
    `X-GitHub-Delivery` has the same key. None for events without such an id (`pull_request`,
    `ping`): the receiver dedupes those on their body's digest."""
    name = _REPLAY_OBJECTS.get(event)
    obj = payload if event == "status" else payload.get(name) if name else None
    if not isinstance(obj, Mapping):
        return None
    ident = obj.get("id")
    if not isinstance(ident, int) or isinstance(ident, bool):
        return None
    action = _text(payload.get("action"))
    state = _text(obj.get("status") if event == "check_run" else obj.get("state"))
    return f"{event}:{ident}:{action}:{state}:{_text(obj.get('updated_at'))}"


def _check_run(repo: str, run: Mapping[str, Any]) -> list[GitHubEvent]:
    numbers = sorted(
        {_int(pr, "number") for pr in _list(run, "pull_requests") if isinstance(pr, Mapping)}
    )
    return [
        CheckRunUpdate(
            pr=PullRef(repo, number),
            head_sha=_str(run, "head_sha"),
            check_id=_int(run, "id"),
            name=_str(run, "name"),
            status=_str(run, "status"),
            conclusion=_text(run.get("conclusion")),
            url=_text(run.get("html_url")) or _text(run.get("details_url")),
        )
        for number in numbers
    ]


def _status(repo: str, payload: Mapping[str, Any]) -> CommitStatus:
    branches = sorted(
        {str(b["name"]) for b in _list(payload, "branches") if isinstance(b, Mapping)
         and isinstance(b.get("name"), str)}
    )  # fmt: skip
    return CommitStatus(
        repo=repo,
        sha=_str(payload, "sha"),
        status_id=_int(payload, "id"),
        context=_str(payload, "context"),
        state=_str(payload, "state"),
        description=_text(payload.get("description")),
        url=_text(payload.get("target_url")),
        branches=tuple(branches),
    )


def _review(repo: str, payload: Mapping[str, Any]) -> ReviewSubmitted:
    review = _obj(payload, "review")
    pull = _obj(payload, "pull_request")
    return ReviewSubmitted(
        pr=PullRef(repo, _int(pull, "number")),
        reviewer=_login(review, "user"),
        state=_str(review, "state").lower(),  # webhooks say "approved"; the REST API "APPROVED"
        body=_text(review.get("body")),
        url=_text(review.get("html_url")),
    )


def _review_comment(repo: str, payload: Mapping[str, Any]) -> CommentAdded:
    comment = _obj(payload, "comment")
    pull = _obj(payload, "pull_request")
    line = comment.get("line")
    if not isinstance(line, int):
        line = comment.get("original_line")
    return CommentAdded(
        pr=PullRef(repo, _int(pull, "number")),
        author=_login(comment, "user"),
        body=_text(comment.get("body")),
        url=_text(comment.get("html_url")),
        path=_text(comment.get("path")),
        line=line if isinstance(line, int) and not isinstance(line, bool) else None,
    )


def _pull_request(repo: str, action: str, payload: Mapping[str, Any]) -> list[GitHubEvent]:
    pull = _obj(payload, "pull_request")
    pr = PullRef(repo, _int(pull, "number"))
    url = _text(pull.get("html_url"))
    if action == "closed":
        merged = pull.get("merged") is True
        by_merger = merged and isinstance(pull.get("merged_by"), Mapping)
        by = _login(pull, "merged_by") if by_merger else _login(payload, "sender")
        return [PullRequestClosed(pr, merged, by, url)]
    if action in ("opened", "reopened", "synchronize", "edited"):
        head = _obj(pull, "head")
        conflicts = pull.get("mergeable") is False or pull.get("mergeable_state") == "dirty"
        return [PullRequestUpdated(pr, _text(head.get("sha")), conflicts)]
    return []


# --- field access that names what is missing ---------------------------------------------------


def _obj(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, Mapping):
        raise PayloadError(f"payload field {key!r} is missing or not an object")
    return value


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise PayloadError(f"payload field {key!r} is missing or not a string")
    return value


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise PayloadError(f"payload field {key!r} is missing or not a number")
    return value


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    if value is not None and not isinstance(value, list):
        raise PayloadError(f"payload field {key!r} is not a list")
    return value or []


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _login(data: Mapping[str, Any], key: str) -> str:
    user = data.get(key)
    login = user.get("login") if isinstance(user, Mapping) else None
    return login if isinstance(login, str) and login else "someone"
