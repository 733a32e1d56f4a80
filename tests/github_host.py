"""The bot's GitHub client pointed at the local GitHub fake, for unit tests."""

from __future__ import annotations

from bot.github.auth import StaticToken
from bot.github.code_host import GitHubCodeHost
from fakes.github_server import FakeGitHub


def fake_code_host(fake: FakeGitHub, token: str) -> GitHubCodeHost:
    """acme/infra on `fake`, writing without pause; GitHub's failures are answered at once
    (retries have their own tests)."""
    return GitHubCodeHost(
        owner="acme", name="infra", tokens=StaticToken(token), api_url=fake.url,
        write_interval=None, retry_delays=(),
    )  # fmt: skip
