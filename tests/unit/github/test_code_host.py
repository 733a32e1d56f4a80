"""GitHubCodeHost through real PyGithub against the fake GitHub REST server over HTTP."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.compose import build_code_host
from bot.config import Settings
from bot.github.auth import InstallationTokens, StaticToken
from bot.github.code_host import MAX_LISTED, GitHubCodeHost
from bot.github.errors import (
    AuthError,
    CodeHostError,
    Conflict,
    NotFound,
    PermissionDenied,
    RateLimited,
    Unavailable,
)
from fakes.github_server import FakeGitHub, new_app_key, rate_limit_headers
from tests.github_host import fake_code_host
from tools.context import ToolContext
from tools.github import TOOLS
from tools.registry import ToolRegistry

TOKEN = "ghp_testtoken0123456789abcdef"
HEAD = "tanka-bot/1712345678.000100-add-redis"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(tokens=(TOKEN,)) as server:
        server.add_repo("acme", "infra", branches={"main", HEAD, "other"})
        yield server


@pytest.fixture
def host(fake: FakeGitHub) -> Iterator[GitHubCodeHost]:
    code_host = fake_code_host(fake, TOKEN)
    yield code_host
    code_host.close()


def test_opens_a_pull_request(fake: FakeGitHub, host: GitHubCodeHost) -> None:
    ref = host.open_pull_request(HEAD, "main", "Add redis", "Requested in Slack", draft=True)

    assert (ref.number, ref.head, ref.created) == (1, HEAD, True)
    assert ref.url.endswith("/acme/infra/pull/1")
    [sent] = fake.requests_to("POST", r"/pulls$")
    assert sent.headers["authorization"] == f"token {TOKEN}"
    assert sent.body == {
        "base": "main",
        "head": HEAD,
        "title": "Add redis",
        "body": "Requested in Slack",
        "draft": True,
    }
    pull = fake.repos["acme/infra"].pulls[1]
    assert (pull.title, pull.body, pull.draft) == ("Add redis", "Requested in Slack", True)


def test_existing_pull_request_is_returned_instead_of_failing(
    fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    first = host.open_pull_request(HEAD, "main", "Add redis", "one")
    again = host.open_pull_request(HEAD, "main", "Add redis", "two")

    assert (again.number, again.url, again.created) == (first.number, first.url, False)
    assert len(fake.repos["acme/infra"].pulls) == 1


def test_already_exists_without_a_findable_pull_request_is_a_conflict(
    fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    fake.fail(422, body={"message": "Validation Failed", "errors": [
        {"resource": "PullRequest", "code": "custom",
         "message": f"A pull request already exists for acme:{HEAD}."}]})  # fmt: skip
    with pytest.raises(Conflict, match="already exists"):
        host.open_pull_request(HEAD, "main", "t", "b")


def test_unknown_head_branch_is_not_found(host: GitHubCodeHost) -> None:
    with pytest.raises(NotFound, match=r"branch does not exist.*push it first") as caught:
        host.open_pull_request("never-pushed", "main", "t", "b")
    assert caught.value.what == "branch"


def test_unknown_base_branch_names_the_setting(host: GitHubCodeHost) -> None:
    with pytest.raises(NotFound, match="TANKA_BOT_BASE_BRANCH") as caught:
        host.open_pull_request(HEAD, "master", "t", "b")
    assert caught.value.what == "base branch"


def test_finds_the_open_pull_request_of_a_branch(fake: FakeGitHub, host: GitHubCodeHost) -> None:
    fake.add_pull("acme/infra", head="other")
    fake.add_pull("acme/infra", head=HEAD, state="closed")
    assert host.find_pull_request(HEAD) is None

    wanted = fake.add_pull("acme/infra", head=HEAD)
    found = host.find_pull_request(HEAD)

    assert found is not None
    assert (found.number, found.head, found.created) == (wanted.number, HEAD, False)
    assert fake.requests_to("GET", r"/pulls$")[-1].query["head"] == f"acme:{HEAD}"


def test_updates_the_body(fake: FakeGitHub, host: GitHubCodeHost) -> None:
    pull = fake.add_pull("acme/infra", head=HEAD, body="old")
    host.update_pull_request_body(pull.number, "new body")
    assert fake.repos["acme/infra"].pulls[pull.number].body == "new body"


def test_updating_a_missing_pull_request_names_it(host: GitHubCodeHost) -> None:
    with pytest.raises(NotFound, match="pull request #42 not found") as caught:
        host.update_pull_request_body(42, "x")
    assert caught.value.what == "pull request #42"


def test_lists_open_pull_requests_newest_update_first(
    fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    old = fake.add_pull("acme/infra", head="a", title="Old", author="ana")
    fake.add_pull("acme/infra", head="b", state="closed")
    new = fake.add_pull("acme/infra", head="c", title="New", author="bo", draft=True)
    new.updated_at = old.updated_at.replace(year=old.updated_at.year + 1)

    listed = host.open_pull_requests()

    assert [p.number for p in listed] == [new.number, old.number]
    first = listed[0]
    assert (first.title, first.head, first.base, first.author, first.draft) == (
        "New", "c", "main", "bo", True
    )  # fmt: skip
    assert first.url.endswith(f"/acme/infra/pull/{new.number}")
    assert first.updated_at.startswith(str(new.updated_at.year))


def test_listing_is_capped(fake: FakeGitHub, host: GitHubCodeHost) -> None:
    for i in range(MAX_LISTED + 7):
        fake.add_pull("acme/infra", head=f"b{i}")
    assert len(host.open_pull_requests()) == MAX_LISTED
    assert len(fake.requests_to("GET", r"/pulls$")) == 1


def test_token_for_push_is_the_token(host: GitHubCodeHost) -> None:
    assert host.token_for_push() == TOKEN


def test_github_enterprise_base_url_with_a_path_prefix() -> None:
    with FakeGitHub(tokens=(TOKEN,), prefix="/api/v3") as ghe:
        ghe.add_repo("acme", "infra")
        host = GitHubCodeHost(owner="acme", name="infra", tokens=StaticToken(TOKEN),
                              api_url=ghe.url + "/", write_interval=None)  # fmt: skip
        try:
            assert host.open_pull_request(HEAD, "main", "t", "b").created
        finally:
            host.close()
        assert ghe.url.endswith("/api/v3")
        assert [r.path for r in ghe.requests] == ["/repos/acme/infra/pulls"]


# --- errors -------------------------------------------------------------------------


ErrorCase = tuple[int, str, dict[str, str], type[CodeHostError], str]


@pytest.mark.parametrize(
    "case",
    [
        (401, "Bad credentials", {}, AuthError, "check GITHUB_TOKEN"),
        (403, "Resource not accessible by integration", {}, PermissionDenied, "pull requests"),
        (403, "API rate limit exceeded", rate_limit_headers(reset=1_900_000_000), RateLimited,
         "resets at 2030-03-17"),
        (403, "You have exceeded a secondary rate limit", {"retry-after": "30"}, RateLimited,
         "retry after 30s"),
        (429, "Too many requests", {"retry-after": "5"}, RateLimited, "retry after 5s"),
        (500, "Server Error", {}, Unavailable, "try again later"),
        (502, "Bad Gateway", {}, Unavailable, "try again later"),
    ],
)  # fmt: skip
def test_http_errors_become_typed_errors_without_retries(
    fake: FakeGitHub, host: GitHubCodeHost, case: ErrorCase
) -> None:
    status, message, headers, error, hint = case
    fake.fail(status, message, headers=headers, times=5)
    with pytest.raises(error) as caught:
        host.open_pull_requests()
    assert hint in str(caught.value)
    assert caught.value.status == status
    assert caught.value.retryable is (error in (RateLimited, Unavailable))
    assert len(fake.requests) == 1  # one layer owns retries, and it is not PyGithub


def test_rate_limit_carries_when_to_retry(fake: FakeGitHub, host: GitHubCodeHost) -> None:
    fake.fail(403, "secondary", headers={"retry-after": "12"})
    with pytest.raises(RateLimited) as caught:
        host.find_pull_request(HEAD)
    assert caught.value.retry_after == 12.0


def test_wrong_token_is_an_auth_error(fake: FakeGitHub) -> None:
    host = GitHubCodeHost(owner="acme", name="infra", tokens=StaticToken("ghp_wrongwrongwrong"),
                          api_url=fake.url, write_interval=None)  # fmt: skip
    try:
        with pytest.raises(AuthError, match="401 Bad credentials") as caught:
            host.open_pull_request(HEAD, "main", "t", "b")
    finally:
        host.close()
    assert "ghp_wrongwrongwrong" not in str(caught.value)


def test_unknown_repository_is_not_found(fake: FakeGitHub) -> None:
    host = GitHubCodeHost(owner="acme", name="nope", tokens=StaticToken(TOKEN),
                          api_url=fake.url, write_interval=None)  # fmt: skip
    try:
        with pytest.raises(NotFound, match="repository acme/nope not found") as caught:
            host.open_pull_requests()
    finally:
        host.close()
    assert caught.value.what == "repository acme/nope"


def test_unreachable_github_is_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    host = GitHubCodeHost(owner="acme", name="infra", tokens=StaticToken(TOKEN),
                          api_url=f"http://127.0.0.1:{port}", timeout=2)  # fmt: skip
    try:
        with pytest.raises(Unavailable, match=r"cannot reach GitHub.*GITHUB_API_URL"):
            host.open_pull_requests()
    finally:
        host.close()


def test_no_error_or_debug_log_contains_the_token(
    fake: FakeGitHub, host: GitHubCodeHost, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake.fail(422, body={"message": f"echo {TOKEN}", "errors": [f"token {TOKEN} rejected"]})
    fake.fail(500, f"boom {TOKEN}", method="GET")
    messages = []
    for call in (
        lambda: host.open_pull_request(HEAD, "main", "t", "b"),
        host.open_pull_requests,
        lambda: host.update_pull_request_body(99, "x"),
    ):
        with pytest.raises(CodeHostError) as caught:
            call()
        messages.append(str(caught.value))
    assert all(TOKEN not in m for m in messages)
    assert "<redacted>" in messages[0]
    assert caplog.records  # PyGithub did log the requests
    assert TOKEN not in caplog.text


# --- build_code_host ------------------------------------------------------------------


def test_not_configured_without_credentials() -> None:
    assert build_code_host(Settings(TANKA_BOT_REPO_URL="git@github.com:acme/infra.git")) is None


def test_token_settings(fake: FakeGitHub) -> None:
    settings = Settings(
        TANKA_BOT_REPO_URL="git@github.com:acme/infra.git",
        GITHUB_TOKEN=SecretStr(TOKEN),
        GITHUB_API_URL=fake.url,
    )
    host = build_code_host(settings)
    assert host is not None
    try:
        assert host.full_name == "acme/infra"
        assert host.open_pull_requests() == []
    finally:
        host.close()


def test_app_settings_with_a_key_file(fake: FakeGitHub, tmp_path: Path) -> None:
    pem, public_key = new_app_key()
    fake.app_id, fake.app_public_key = "4242", public_key
    key_file = tmp_path / "app.pem"
    key_file.write_text(pem)
    settings = Settings(
        TANKA_BOT_GITHUB_REPO="acme/infra",
        GITHUB_APP_ID="4242",
        GITHUB_APP_PRIVATE_KEY_PATH=key_file,
        GITHUB_API_URL=fake.url,
    )
    host = build_code_host(settings)
    assert host is not None
    try:
        assert isinstance(host._tokens, InstallationTokens)
        assert host.token_for_push().startswith("ghs_")
        assert host.open_pull_requests() == []
    finally:
        host.close()


# --- the agent's tool on top of the real code host ---------------------------------------


def test_github_pr_list_tool_reads_through_the_code_host(
    fake: FakeGitHub, host: GitHubCodeHost, tmp_path: Path
) -> None:
    fake.add_pull("acme/infra", head=HEAD, title="Add redis", author="tanka-bot[bot]")
    ctx = ToolContext(root=tmp_path, pull_requests=host)
    registry = ToolRegistry(TOOLS)

    listed = registry.execute(ctx, "github_pr_list", {})
    fake.fail(401, "Bad credentials")
    refused = registry.execute(ctx, "github_pr_list", {})

    assert not listed.is_error
    assert f"#1 Add redis ({HEAD} -> main, by tanka-bot[bot]" in listed.content
    assert refused.is_error
    assert "check GITHUB_TOKEN" in refused.content
    assert TOKEN not in refused.content


def test_concurrent_turns_share_one_code_host(fake: FakeGitHub, host: GitHubCodeHost) -> None:
    heads = [f"tanka-bot/{i}-change" for i in range(12)]
    fake.repos["acme/infra"].branches = None  # any pushed branch exists

    with ThreadPoolExecutor(max_workers=6) as pool:
        refs = list(pool.map(lambda h: host.open_pull_request(h, "main", h, "body"), heads))
        listings = list(pool.map(lambda _: len(host.open_pull_requests()), range(6)))

    assert [r.head for r in refs] == heads
    assert sorted(r.number for r in refs) == list(range(1, 13))
    pulls = fake.repos["acme/infra"].pulls
    assert all(pulls[r.number].head == r.head == pulls[r.number].title for r in refs)
    assert listings == [12] * 6


def test_check_runs_of_a_commit_with_their_output(fake: FakeGitHub, host: GitHubCodeHost) -> None:
    sha = "c" * 40
    fake.add_check_run("acme/infra", sha, "lint", status="completed", conclusion="success")
    fake.add_check_run("acme/infra", sha, "test", status="completed", conclusion="failure",
                       title="1 failed", summary="sum", text="the log")  # fmt: skip
    fake.add_check_run("acme/infra", "d" * 40, "other")
    runs = host.check_runs(sha)
    assert [(r.name, r.conclusion) for r in runs] == [("lint", "success"), ("test", "failure")]
    assert (runs[1].title, runs[1].summary, runs[1].text) == ("1 failed", "sum", "the log")
    assert runs[0].text == ""


def test_permission_of_a_github_user(fake: FakeGitHub, host: GitHubCodeHost) -> None:
    fake.repos["acme/infra"].collaborators = {"carol": "write", "ada": "admin", "rita": "read"}
    assert [host.permission(u) for u in ("carol", "ada", "rita", "mallory")] == [
        "write", "admin", "read", "none",
    ]  # fmt: skip
    [sent, *_] = fake.requests_to("GET", r"/collaborators/carol/permission$")
    assert sent.headers["authorization"] == f"token {TOKEN}"


def test_a_permission_that_cannot_be_read_is_an_error(
    fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    fake.fail(403, "Resource not accessible by integration", path=r".*/permission$")
    with pytest.raises(PermissionDenied):
        host.permission("carol")
    fake.fail(200, path=r".*/permission$", body={"user": {"login": "carol"}})
    with pytest.raises(CodeHostError, match="had no permission"):
        host.permission("carol")
