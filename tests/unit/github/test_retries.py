"""GitHub answering 5xx or rate-limiting: GitHubCodeHost tries again with backoff (honouring
Retry-After), then gives the typed error; a retried create never opens a second pull request."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.github.auth import StaticToken
from bot.github.code_host import GitHubCodeHost
from bot.github.errors import RateLimited, Unavailable
from fakes.github_server import FakeGitHub

TOKEN = "ghp_testtoken0123456789abcdef"
HEAD = "tanka-bot/1712345678.000100-add-redis"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(tokens=(TOKEN,)) as server:
        server.add_repo("acme", "infra", branches={"main", HEAD})
        yield server


@pytest.fixture
def host(fake: FakeGitHub) -> Iterator[GitHubCodeHost]:
    code_host = GitHubCodeHost(owner="acme", name="infra", tokens=StaticToken(TOKEN),
                               api_url=fake.url, write_interval=None,
                               retry_delays=(0.01, 0.01))  # fmt: skip
    yield code_host
    code_host.close()


def test_bad_gateways_are_retried_and_one_pull_request_opens(
    fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    fake.fail(502, "Bad Gateway", method="POST", path=r"/pulls$", times=2)
    ref = host.open_pull_request(HEAD, "main", "t", "b")
    assert (ref.number, ref.created) == (1, True)
    assert len(fake.requests_to("POST", r"/pulls$")) == 3
    assert list(fake.repos["acme/infra"].pulls) == [1]


def test_a_create_whose_answer_was_lost_returns_the_pull_request_it_made(
    fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    host.open_pull_request(HEAD, "main", "t", "b")  # GitHub made it; say its answer was lost
    ref = host.open_pull_request(HEAD, "main", "t", "b")  # the retry
    assert (ref.number, ref.created) == (1, False)
    assert list(fake.repos["acme/infra"].pulls) == [1]


def test_github_down_for_longer_gives_the_error_after_the_retries(
    fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    fake.fail(502, "Bad Gateway", method="GET", times=10)
    with pytest.raises(Unavailable, match="502"):
        host.open_pull_requests()
    assert len(fake.requests_to("GET", r"/pulls")) == 3  # once, then twice more


def test_retry_after_is_honoured(fake: FakeGitHub, host: GitHubCodeHost) -> None:
    fake.fail(429, "slow down", method="GET", path=r"/pulls", headers={"Retry-After": "1"})
    assert host.open_pull_requests() == []
    assert len(fake.requests_to("GET", r"/pulls")) == 2  # one wait of Retry-After's 1 s


def test_a_retry_after_beyond_the_limit_is_not_waited_for(
    fake: FakeGitHub, host: GitHubCodeHost
) -> None:
    fake.fail(429, "slow down", method="GET", path=r"/pulls", headers={"Retry-After": "3600"})
    with pytest.raises(RateLimited):
        host.open_pull_requests()
    assert len(fake.requests_to("GET", r"/pulls")) == 1
