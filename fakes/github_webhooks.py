"""GitHub's webhook deliveries, as the fake GitHub would send them: payloads and signed POSTs.

Payloads follow GitHub's documented shapes for `check_run`, `status`, `pull_request`,
`pull_request_review`, `pull_request_review_comment` and `issue_comment` (the fields tanka-bot
reads, and enough around them to look real). `WebhookSender` signs each body with the webhook secret
(`X-Hub-Signature-256`), numbers deliveries (`X-GitHub-Delivery`) and can resend one as GitHub's
"Redeliver" does.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field

from fakes.github_state import JSON, FakeCheckRun, FakePull, FakeRepo, check_run_json, pull_json
from fakes.github_state import user_json as user

API = "https://api.github.invalid"
WEB = "https://github.invalid"


def _common(repo: FakeRepo, sender: str) -> JSON:
    return {
        "repository": {"id": 1, "name": repo.name, "full_name": repo.full_name,
                       "owner": user(repo.owner), "private": True},
        "sender": user(sender),
        "installation": {"id": repo.installation_id or 1},
    }  # fmt: skip


def check_run(repo: FakeRepo, run: FakeCheckRun, *, action: str = "") -> JSON:
    action = action or ("completed" if run.status == "completed" else "created")
    return {"action": action, "check_run": check_run_json(repo, run, API, WEB),
            **_common(repo, "github-actions[bot]")}  # fmt: skip


def status(
    repo: FakeRepo, sha: str, context: str, state: str, *, branches: tuple[str, ...],
    description: str = "", target_url: str = "", status_id: int = 0,
) -> JSON:  # fmt: skip
    """A commit status as an external CI system sets it; like GitHub's, it names the branches
    whose head `sha` is, never a pull request."""
    return {
        "id": status_id or uuid.uuid4().int % 10**9, "sha": sha, "name": repo.full_name,
        "target_url": target_url or None, "context": context,
        "description": description or None, "state": state,
        "commit": {"sha": sha, "html_url": f"{WEB}/{repo.full_name}/commit/{sha}"},
        "branches": [{"name": b, "commit": {"sha": sha}, "protected": False} for b in branches],
        "created_at": "2026-11-24T12:00:00Z", "updated_at": "2026-11-24T12:00:00Z",
        **_common(repo, "ci-bot"),
    }  # fmt: skip


def pull_request(
    repo: FakeRepo, pull: FakePull, *, action: str, by: str = "octocat",
    mergeable: bool | None = None,
) -> JSON:  # fmt: skip
    data = pull_json(repo, pull, API, WEB)
    data["merged_by"] = user(by) if pull.merged else None
    data["mergeable"] = mergeable
    data["mergeable_state"] = {None: "unknown", True: "clean", False: "dirty"}[mergeable]
    return {"action": action, "number": pull.number, "pull_request": data, **_common(repo, by)}


def review(repo: FakeRepo, pull: FakePull, *, by: str, state: str, body: str = "") -> JSON:
    review_id = uuid.uuid4().int % 10**9
    return {
        "action": "submitted",
        "review": {
            "id": review_id,
            "user": user(by),
            "body": body or None,
            "state": state,  # webhooks spell it in lower case: approved, changes_requested, ...
            "commit_id": pull.head_sha,
            "html_url": f"{WEB}/{repo.full_name}/pull/{pull.number}#pullrequestreview-{review_id}",
            "submitted_at": "2024-01-01T00:00:00Z",
        },
        "pull_request": pull_json(repo, pull, API, WEB),
        **_common(repo, by),
    }


def review_comment(
    repo: FakeRepo, pull: FakePull, *, by: str, body: str, path: str, line: int
) -> JSON:
    comment_id = uuid.uuid4().int % 10**9
    return {
        "action": "created",
        "comment": {
            "id": comment_id,
            "user": user(by),
            "body": body,
            "path": path,
            "line": line,
            "original_line": line,
            "diff_hunk": "@@ -1,3 +1,3 @@",
            "commit_id": pull.head_sha,
            "html_url": f"{WEB}/{repo.full_name}/pull/{pull.number}#discussion_r{comment_id}",
        },
        "pull_request": pull_json(repo, pull, API, WEB),
        **_common(repo, by),
    }


def issue_comment(repo: FakeRepo, pull: FakePull, *, by: str, body: str) -> JSON:
    comment_id = uuid.uuid4().int % 10**9
    return {
        "action": "created",
        "issue": {
            "number": pull.number,
            "title": pull.title,
            "pull_request": {"url": f"{API}/repos/{repo.full_name}/pulls/{pull.number}"},
        },
        "comment": {
            "id": comment_id,
            "user": user(by),
            "body": body,
            "html_url": f"{WEB}/{repo.full_name}/pull/{pull.number}#issuecomment-{comment_id}",
        },
        **_common(repo, by),
    }


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass
class Delivery:
    event: str
    delivery: str
    body: bytes
    status: int = 0


@dataclass
class WebhookSender:
    """POSTs signed deliveries to a webhook URL; keeps each one for redelivery."""

    url: str
    secret: str
    sent: list[Delivery] = field(default_factory=list)

    def send(self, event: str, payload: JSON, *, secret: str | None = None) -> int:
        body = json.dumps(payload).encode()
        delivery = Delivery(event, str(uuid.uuid4()), body)
        self.sent.append(delivery)
        delivery.status = self._post(delivery, secret if secret is not None else self.secret)
        return delivery.status

    def redeliver(self, delivery: Delivery) -> int:
        return self._post(delivery, self.secret)

    def _post(self, delivery: Delivery, secret: str) -> int:
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "GitHub-Hookshot/fake",
            "X-GitHub-Event": delivery.event,
            "X-GitHub-Delivery": delivery.delivery,
            "X-GitHub-Hook-ID": "1",
        }
        if secret:
            headers["X-Hub-Signature-256"] = sign(secret, delivery.body)
        request = urllib.request.Request(self.url, delivery.body, headers, method="POST")  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)
