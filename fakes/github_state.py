"""In-memory repositories and pull requests of the fake GitHub, rendered as GitHub's JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

JSON = dict[str, Any]


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class FakePull:
    number: int
    title: str
    body: str
    head: str
    base: str
    author: str
    draft: bool = False
    state: str = "open"
    merged: bool = False
    head_sha: str = ""  # the head commit, when a test sets it (else a stand-in from the branch)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    updated_at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass
class FakeCheckRun:
    id: int
    head_sha: str
    name: str
    status: str = "queued"
    conclusion: str | None = None
    title: str | None = None
    summary: str | None = None
    text: str | None = None


@dataclass
class FakeRepo:
    owner: str
    name: str
    default_branch: str = "main"
    # None: every branch exists (tests that push with real git need not declare them).
    branches: set[str] | None = None
    installation_id: int | None = 1
    pulls: dict[int, FakePull] = field(default_factory=dict)
    check_runs: list[FakeCheckRun] = field(default_factory=list)
    # login -> permission (admin, write, read), as GitHub's collaborator permission API
    # answers it; anyone else has "none".
    collaborators: dict[str, str] = field(default_factory=dict)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def has_branch(self, branch: str) -> bool:
        return self.branches is None or branch in self.branches

    def next_number(self) -> int:
        return max(self.pulls, default=0) + 1

    def open_pull_for(self, head: str, base: str) -> FakePull | None:
        for pull in self.pulls.values():
            if pull.state == "open" and pull.head == head and pull.base == base:
                return pull
        return None

    def select(self, query: dict[str, str]) -> list[FakePull]:
        """GitHub's list filters: state, head (owner:branch), base, sort, direction."""
        state = query.get("state", "open")
        pulls = [p for p in self.pulls.values() if state in ("all", p.state)]
        head = query.get("head")
        # Like GitHub, a head filter without the owner prefix matches nothing specific.
        if head and ":" in head:
            owner, _, branch = head.partition(":")
            pulls = [p for p in pulls if owner == self.owner and p.head == branch]
        if "base" in query:
            pulls = [p for p in pulls if p.base == query["base"]]
        key = "updated_at" if query.get("sort") == "updated" else "created_at"
        newest_first = query.get("direction", "desc") == "desc"
        return sorted(pulls, key=lambda p: (getattr(p, key), p.number), reverse=newest_first)


def user_json(login: str) -> JSON:
    return {"login": login, "id": abs(hash(login)) % 100_000, "type": "User"}


def repo_json(repo: FakeRepo, api: str, web: str) -> JSON:
    return {
        "id": abs(hash(repo.full_name)) % 1_000_000,
        "name": repo.name,
        "full_name": repo.full_name,
        "owner": user_json(repo.owner),
        "private": True,
        "default_branch": repo.default_branch,
        "url": f"{api}/repos/{repo.full_name}",
        "html_url": f"{web}/{repo.full_name}",
    }


def pull_json(repo: FakeRepo, pull: FakePull, api: str, web: str) -> JSON:
    def side(branch: str, sha: str = "") -> JSON:
        return {
            "label": f"{repo.owner}:{branch}",
            "ref": branch,
            "sha": sha or f"{abs(hash(branch)):040x}"[:40],
            "repo": repo_json(repo, api, web),
            "user": user_json(repo.owner),
        }

    return {
        "url": f"{api}/repos/{repo.full_name}/pulls/{pull.number}",
        "html_url": f"{web}/{repo.full_name}/pull/{pull.number}",
        "id": 1000 + pull.number,
        "number": pull.number,
        "state": pull.state,
        "title": pull.title,
        "body": pull.body,
        "draft": pull.draft,
        "merged": pull.merged,
        "user": user_json(pull.author),
        "head": side(pull.head, pull.head_sha),
        "base": side(pull.base),
        "created_at": iso(pull.created_at),
        "updated_at": iso(pull.updated_at),
    }


def check_run_json(repo: FakeRepo, run: FakeCheckRun, api: str, web: str) -> JSON:
    pulls = [p for p in repo.pulls.values() if p.head_sha == run.head_sha and p.state == "open"]
    return {
        "id": run.id,
        "name": run.name,
        "head_sha": run.head_sha,
        "status": run.status,
        "conclusion": run.conclusion,
        "url": f"{api}/repos/{repo.full_name}/check-runs/{run.id}",
        "html_url": f"{web}/{repo.full_name}/runs/{run.id}",
        "details_url": f"{web}/{repo.full_name}/runs/{run.id}",
        "output": {
            "title": run.title,
            "summary": run.summary,
            "text": run.text,
            "annotations_count": 0,
            "annotations_url": f"{api}/repos/{repo.full_name}/check-runs/{run.id}/annotations",
        },
        "pull_requests": [
            {
                "number": p.number,
                "url": f"{api}/repos/{repo.full_name}/pulls/{p.number}",
                "head": {"ref": p.head, "sha": p.head_sha},
                "base": {"ref": p.base, "sha": ""},
            }
            for p in pulls
        ],
    }
