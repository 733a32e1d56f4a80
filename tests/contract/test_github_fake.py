"""The fake GitHub answers as GitHub's REST docs say, checked with plain HTTP (no PyGithub).

No test may reach the real GitHub, so this pins the documented behaviour the code host relies
on: status codes, error bodies, the `owner:branch` head filter, Link pagination, installation
tokens and the App JWT rules (RS256, `iss` = App id, at most 10 minutes of validity).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from fakes.github_server import FakeGitHub, new_app_key, rate_limit_headers

TOKEN = "ghp_contracttoken0123456789"
APP_ID = "99"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(scope="module")
def app_key() -> tuple[str, RSAPublicKey]:
    return new_app_key()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def fake(app_key: tuple[str, RSAPublicKey], clock: Clock) -> Iterator[FakeGitHub]:
    with FakeGitHub(
        tokens=(TOKEN,), app_id=APP_ID, app_public_key=app_key[1], clock=clock, prefix="/api/v3"
    ) as server:
        server.add_repo("acme", "infra", branches={"main", "feature"}, installation_id=5)
        yield server


@pytest.fixture
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        session.headers["Authorization"] = f"token {TOKEN}"
        yield session


def app_jwt(pem: str, *, iss: str = APP_ID, lifetime: int = 540) -> str:
    now = int(time.time())
    return jwt.encode({"iat": now - 60, "exp": now + lifetime, "iss": iss}, pem, "RS256")


def test_repository(fake: FakeGitHub, http: requests.Session) -> None:
    reply = http.get(f"{fake.url}/repos/acme/infra")
    assert reply.status_code == 200
    body: dict[str, Any] = reply.json()
    assert (body["full_name"], body["default_branch"]) == ("acme/infra", "main")
    assert body["url"] == f"{fake.url}/repos/acme/infra"


def test_unknown_repository_and_path_are_404(fake: FakeGitHub, http: requests.Session) -> None:
    for path in ("/repos/acme/missing", "/repos/acme/infra/nothing-here"):
        reply = http.get(fake.url + path)
        assert reply.status_code == 404
        assert reply.json()["message"] == "Not Found"


def test_missing_or_wrong_token_is_401(fake: FakeGitHub) -> None:
    assert requests.get(f"{fake.url}/repos/acme/infra", timeout=5).status_code == 401
    reply = requests.get(
        f"{fake.url}/repos/acme/infra", headers={"Authorization": "token nope"}, timeout=5
    )
    assert (reply.status_code, reply.json()["message"]) == (401, "Bad credentials")


def test_create_then_duplicate_is_422_already_exists(
    fake: FakeGitHub, http: requests.Session
) -> None:
    pr = {"title": "t", "head": "feature", "base": "main", "body": "b"}
    created = http.post(f"{fake.url}/repos/acme/infra/pulls", json=pr)
    again = http.post(f"{fake.url}/repos/acme/infra/pulls", json={**pr, "head": "acme:feature"})

    assert created.status_code == 201
    assert (created.json()["number"], created.json()["head"]["label"]) == (1, "acme:feature")
    assert again.status_code == 422
    assert again.json()["message"] == "Validation Failed"
    assert again.json()["errors"][0]["message"] == "A pull request already exists for acme:feature."


def test_unknown_head_is_422_invalid_field(fake: FakeGitHub, http: requests.Session) -> None:
    reply = http.post(
        f"{fake.url}/repos/acme/infra/pulls", json={"title": "t", "head": "nope", "base": "main"}
    )
    assert reply.status_code == 422
    assert reply.json()["errors"] == [
        {"resource": "PullRequest", "field": "head", "code": "invalid"}
    ]


def test_head_filter_needs_the_owner_prefix(fake: FakeGitHub, http: requests.Session) -> None:
    fake.add_pull("acme/infra", head="feature")
    fake.add_pull("acme/infra", head="other")
    url = f"{fake.url}/repos/acme/infra/pulls"

    with_owner = http.get(url, params={"head": "acme:feature"}).json()
    without_owner = http.get(url, params={"head": "feature"}).json()

    assert [p["head"]["ref"] for p in with_owner] == ["feature"]
    assert len(without_owner) == 2  # GitHub ignores a head filter without "owner:"


def test_state_filter_and_link_pagination(fake: FakeGitHub, http: requests.Session) -> None:
    for i in range(5):
        fake.add_pull("acme/infra", head=f"b{i}", state="closed" if i == 0 else "open")
    url = f"{fake.url}/repos/acme/infra/pulls"

    first = http.get(url, params={"per_page": "3"})
    second = http.get(first.links["next"]["url"])

    assert [p["number"] for p in first.json()] == [5, 4, 3]
    assert first.links["last"]["url"].endswith("page=2")
    assert [p["number"] for p in second.json()] == [2]
    assert "next" not in second.links
    assert len(http.get(url, params={"state": "all"}).json()) == 5


def test_update_pull_request(fake: FakeGitHub, http: requests.Session, clock: Clock) -> None:
    pull = fake.add_pull("acme/infra", head="feature")
    clock.now += timedelta(minutes=3)
    reply = http.patch(f"{fake.url}/repos/acme/infra/pulls/{pull.number}", json={"body": "new"})
    assert reply.status_code == 200
    assert (reply.json()["body"], reply.json()["updated_at"]) == ("new", "2030-01-01T00:03:00Z")
    missing = http.patch(f"{fake.url}/repos/acme/infra/pulls/99", json={"body": "x"})
    assert missing.status_code == 404


def test_installation_token_with_a_valid_jwt(
    fake: FakeGitHub, app_key: tuple[str, RSAPublicKey], clock: Clock
) -> None:
    bearer = {"Authorization": f"Bearer {app_jwt(app_key[0])}"}
    found = requests.get(f"{fake.url}/repos/acme/infra/installation", headers=bearer, timeout=5)
    grant = requests.post(
        f"{fake.url}/app/installations/5/access_tokens", headers=bearer, json={}, timeout=5
    )

    assert found.json()["id"] == 5
    assert grant.status_code == 201
    token = grant.json()["token"]
    assert token.startswith("ghs_")
    assert grant.json()["expires_at"] == "2030-01-01T01:00:00Z"
    use = {"Authorization": f"token {token}"}
    assert requests.get(f"{fake.url}/repos/acme/infra", headers=use, timeout=5).ok
    clock.now += timedelta(hours=1)
    expired = requests.get(f"{fake.url}/repos/acme/infra", headers=use, timeout=5)
    assert expired.status_code == 401


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda pem: app_jwt(pem, iss="12"), "Issuer"),
        (lambda pem: app_jwt(pem, lifetime=3600), "too far in the future"),
        (lambda pem: app_jwt(new_app_key()[0]), "could not be decoded"),
        (lambda pem: TOKEN, "could not be decoded"),
    ],
)
def test_bad_jwts_are_refused(
    fake: FakeGitHub, app_key: tuple[str, RSAPublicKey], make: Any, reason: str
) -> None:
    reply = requests.post(
        f"{fake.url}/app/installations/5/access_tokens",
        headers={"Authorization": f"Bearer {make(app_key[0])}"},
        timeout=5,
    )
    assert reply.status_code == 401
    assert reason in reply.json()["message"]


def test_injected_failures_match_method_and_path_then_run_out(
    fake: FakeGitHub, http: requests.Session
) -> None:
    fake.fail(403, "API rate limit exceeded", method="GET", path="/pulls$",
              headers=rate_limit_headers(reset=1_900_000_000), times=2)  # fmt: skip
    url = f"{fake.url}/repos/acme/infra/pulls"

    limited = [http.get(url) for _ in range(3)]

    assert [r.status_code for r in limited] == [403, 403, 200]
    assert limited[0].headers["x-ratelimit-remaining"] == "0"
    assert limited[0].headers["x-ratelimit-reset"] == "1900000000"
    assert http.get(f"{fake.url}/repos/acme/infra").status_code == 200


def test_requests_are_recorded_with_headers(fake: FakeGitHub, http: requests.Session) -> None:
    http.post(f"{fake.url}/repos/acme/infra/pulls?x=1", json={"title": "t"})
    [recorded] = fake.requests
    assert (recorded.method, recorded.path, recorded.query) == (
        "POST", "/repos/acme/infra/pulls", {"x": "1"}
    )  # fmt: skip
    assert recorded.headers["authorization"] == f"token {TOKEN}"
    assert recorded.body == {"title": "t"}
