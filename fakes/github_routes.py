"""Endpoint handlers of the fake GitHub; each answers as GitHub's REST API documents."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakes.github_state import (
    JSON,
    FakePull,
    FakeRepo,
    check_run_json,
    pull_json,
    repo_json,
    user_json,
)

if TYPE_CHECKING:
    from fakes.github_server import FakeGitHub


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str  # without the API prefix and query
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    body: Any


@dataclass
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


def error(status: int, message: str, **extra: Any) -> Reply:
    return Reply(
        status, {"message": message, "documentation_url": "https://docs.github.com/rest", **extra}
    )


def paginate(items: list[JSON], request: RecordedRequest, base: str) -> Iterator[tuple[str, str]]:
    """Link header entries ("next", "last") for GitHub's page/per_page pagination."""
    per_page = int(request.query.get("per_page", "30"))
    page = int(request.query.get("page", "1"))
    last = max(1, -(-len(items) // per_page))
    query = {k: v for k, v in request.query.items() if k != "page"}
    suffix = "&".join(f"{k}={v}" for k, v in query.items())
    if page < last:
        yield "next", f"{base}{request.path}?{suffix}&page={page + 1}"
        yield "last", f"{base}{request.path}?{suffix}&page={last}"


def access_token(fake: FakeGitHub, request: RecordedRequest, id: str) -> Reply:
    refused = fake.check_jwt(request)
    if refused is not None:
        return refused
    if not any(r.installation_id == int(id) for r in fake.repos.values()):
        return error(404, "Not Found")
    return Reply(201, fake.issue_token())


def installation(fake: FakeGitHub, request: RecordedRequest, owner: str, name: str) -> Reply:
    refused = fake.check_jwt(request)
    if refused is not None:
        return refused
    repo = fake.repos.get(f"{owner}/{name}")
    if repo is None or repo.installation_id is None:
        return error(404, "Not Found")
    return Reply(200, {"id": repo.installation_id, "app_id": fake.app_id, "target_type": "User"})


def get_repo(fake: FakeGitHub, request: RecordedRequest, owner: str, name: str) -> Reply:
    found = _repo(fake, request, owner, name)
    if isinstance(found, Reply):
        return found
    return Reply(200, repo_json(found, fake.url, fake.web_url))


def list_pulls(fake: FakeGitHub, request: RecordedRequest, owner: str, name: str) -> Reply:
    found = _repo(fake, request, owner, name)
    if isinstance(found, Reply):
        return found
    items = [pull_json(found, p, fake.url, fake.web_url) for p in found.select(request.query)]
    per_page = int(request.query.get("per_page", "30"))
    page = int(request.query.get("page", "1"))
    links = ", ".join(f'<{url}>; rel="{rel}"' for rel, url in paginate(items, request, fake.url))
    shown = items[(page - 1) * per_page : page * per_page]
    return Reply(200, shown, {"link": links} if links else {})


def create_pull(fake: FakeGitHub, request: RecordedRequest, owner: str, name: str) -> Reply:
    found = _repo(fake, request, owner, name)
    if isinstance(found, Reply):
        return found
    body: dict[str, Any] = request.body or {}
    head = str(body.get("head", "")).removeprefix(f"{owner}:")
    base = str(body.get("base", ""))
    for side, branch in (("base", base), ("head", head)):
        if not branch or not found.has_branch(branch):
            return _invalid({"resource": "PullRequest", "field": side, "code": "invalid"})
    if found.open_pull_for(head, base) is not None:
        message = f"A pull request already exists for {owner}:{head}."
        return _invalid({"resource": "PullRequest", "code": "custom", "message": message})
    now = fake.clock()
    pull = FakePull(
        number=found.next_number(),
        title=str(body.get("title", "")),
        body=str(body.get("body") or ""),
        head=head,
        base=base,
        author="tanka-bot[bot]",
        draft=bool(body.get("draft", False)),
        created_at=now,
        updated_at=now,
    )
    found.pulls[pull.number] = pull
    return Reply(201, pull_json(found, pull, fake.url, fake.web_url))


def get_pull(
    fake: FakeGitHub, request: RecordedRequest, owner: str, name: str, number: str
) -> Reply:
    found = _pull(fake, request, owner, name, number)
    if isinstance(found, Reply):
        return found
    repo, pull = found
    return Reply(200, pull_json(repo, pull, fake.url, fake.web_url))


def update_pull(
    fake: FakeGitHub, request: RecordedRequest, owner: str, name: str, number: str
) -> Reply:
    found = _pull(fake, request, owner, name, number)
    if isinstance(found, Reply):
        return found
    repo, pull = found
    body: dict[str, Any] = request.body or {}
    for key in ("title", "body", "state", "base"):
        if key in body:
            setattr(pull, key, str(body[key]))
    pull.updated_at = fake.clock()
    return Reply(200, pull_json(repo, pull, fake.url, fake.web_url))


def list_check_runs(
    fake: FakeGitHub, request: RecordedRequest, owner: str, name: str, ref: str
) -> Reply:
    found = _repo(fake, request, owner, name)
    if isinstance(found, Reply):
        return found
    runs = [r for r in found.check_runs if r.head_sha == ref]
    items = [check_run_json(found, r, fake.url, fake.web_url) for r in runs]
    return Reply(200, {"total_count": len(items), "check_runs": items})


def collaborator_permission(
    fake: FakeGitHub, request: RecordedRequest, owner: str, name: str, login: str
) -> Reply:
    found = _repo(fake, request, owner, name)
    if isinstance(found, Reply):
        return found
    permission = found.collaborators.get(login, "none")
    role = {"admin": "admin", "write": "write", "read": "read"}.get(permission, "none")
    return Reply(200, {"permission": permission, "role_name": role, "user": user_json(login)})


def _invalid(problem: dict[str, str]) -> Reply:
    return error(422, "Validation Failed", errors=[problem])


def _repo(fake: FakeGitHub, request: RecordedRequest, owner: str, name: str) -> FakeRepo | Reply:
    refused = fake.check_token(request)
    if refused is not None:
        return refused
    repo = fake.repos.get(f"{owner}/{name}")
    return repo if repo is not None else error(404, "Not Found")


def _pull(
    fake: FakeGitHub, request: RecordedRequest, owner: str, name: str, number: str
) -> tuple[FakeRepo, FakePull] | Reply:
    repo = _repo(fake, request, owner, name)
    if isinstance(repo, Reply):
        return repo
    pull = repo.pulls.get(int(number))
    return (repo, pull) if pull is not None else error(404, "Not Found")


_REPO = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
_PULL = _REPO + r"/pulls/(?P<number>\d+)"
Handler = Callable[..., Reply]
_ROUTES: list[tuple[str, re.Pattern[str], Handler]] = [
    ("POST", re.compile(r"/app/installations/(?P<id>\d+)/access_tokens"), access_token),
    ("GET", re.compile(_REPO + "/installation"), installation),
    ("GET", re.compile(_REPO), get_repo),
    ("GET", re.compile(_REPO + "/pulls"), list_pulls),
    ("POST", re.compile(_REPO + "/pulls"), create_pull),
    ("GET", re.compile(_PULL), get_pull),
    ("PATCH", re.compile(_PULL), update_pull),
    ("GET", re.compile(_REPO + r"/commits/(?P<ref>[^/]+)/check-runs"), list_check_runs),
    (
        "GET",
        re.compile(_REPO + r"/collaborators/(?P<login>[^/]+)/permission"),
        collaborator_permission,
    ),
]


def route(fake: FakeGitHub, request: RecordedRequest) -> Reply:
    for method, pattern, handler in _ROUTES:
        match = pattern.fullmatch(request.path)
        if match and method == request.method:
            return handler(fake, request, **match.groupdict())
    return error(404, "Not Found")
