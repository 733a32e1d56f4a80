from __future__ import annotations

import pytest

from bot.errors import UserError
from bot.github.repo_slug import parse_repo_slug, resolve_repo


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/acme/infra",
        "https://github.com/acme/infra.git",
        "https://github.com/acme/infra/",
        "https://bot@github.com/acme/infra.git",
        "https://x-access-token:ghp_abcdefgh1234@github.com/acme/infra.git",
        "http://github.com/acme/infra",
        "git@github.com:acme/infra.git",
        "git@github.com:acme/infra",
        "ssh://git@github.com/acme/infra.git",
        "ssh://git@github.com:22/acme/infra.git",
        "https://ghe.example.com/acme/infra.git",
        "git@ghe.example.com:acme/infra.git",
        "  https://github.com/acme/infra.git\n",
    ],
)
def test_parses_owner_and_name(url: str) -> None:
    assert parse_repo_slug(url) == ("acme", "infra")


def test_keeps_dots_and_dashes_in_names() -> None:
    assert parse_repo_slug("git@github.com:my-org/k8s.config.git") == ("my-org", "k8s.config")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("/srv/repos/infra", "local path"),
        ("./infra", "local path"),
        ("file:///srv/repos/infra.git", "not a network URL"),
        ("https://gitlab.example.com/group/sub/infra.git", "not /owner/name"),
        ("https://github.com/acme", "not /owner/name"),
        ("https://github.com/ac me/infra", "characters"),
    ],
)
def test_refuses_urls_without_an_owner_and_name(url: str, why: str) -> None:
    with pytest.raises(UserError, match="TANKA_BOT_GITHUB_REPO=owner/name") as caught:
        parse_repo_slug(url)
    assert why in str(caught.value)


def test_error_never_echoes_credentials_of_the_url() -> None:
    with pytest.raises(UserError) as caught:
        parse_repo_slug("https://user:ghp_supersecret99@github.com/only-owner")
    assert "ghp_supersecret99" not in str(caught.value)
    assert "<redacted>@github.com" in str(caught.value)


def test_setting_wins_over_the_url() -> None:
    assert resolve_repo("team/tanka", "git@github.com:acme/infra.git") == ("team", "tanka")


def test_falls_back_to_the_url() -> None:
    assert resolve_repo(None, "https://github.com/acme/infra.git") == ("acme", "infra")


def test_needs_one_of_them() -> None:
    with pytest.raises(UserError, match="set TANKA_BOT_GITHUB_REPO"):
        resolve_repo(None, None)


def test_bad_setting_is_named() -> None:
    with pytest.raises(UserError, match="TANKA_BOT_GITHUB_REPO must look like owner/name"):
        resolve_repo("just-a-name", None)
