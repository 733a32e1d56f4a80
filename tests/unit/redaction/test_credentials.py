"""scrub_credentials: the service's own tokens and keys never reach a message or a log line."""

from __future__ import annotations

import pytest

from tools.redaction import REDACTED, has_url_userinfo, scrub_credentials

TOKEN = "ghs_TopSecretToken1234567890"


def test_userinfo_and_known_secrets() -> None:
    text = f"fatal: unable to access 'https://x:{TOKEN}@github.com/a/b.git/': {TOKEN}"
    assert scrub_credentials(text, [TOKEN]) == (
        f"fatal: unable to access 'https://{REDACTED}@github.com/a/b.git/': {REDACTED}"
    )


def test_a_secret_containing_another_is_hidden_whole() -> None:
    assert scrub_credentials("key abcd-efgh here", ["abcd", "abcd-efgh"]) == f"key {REDACTED} here"


def test_short_given_secrets_are_still_hidden() -> None:
    # The caller knows these are secrets (an API key in a test fixture may be short).
    assert scrub_credentials("bad key sk-1", ["sk-1", ""]) == f"bad key {REDACTED}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("token ghp_abcdefgh12345678 leaked", f"token {REDACTED} leaked"),
        ("github_pat_11ABCDEFG0123456789_abcdef in a log", f"{REDACTED} in a log"),
        (
            '{"token": "v1.abcdef0123456789", "expires_at": "2030-01-01T00:00:00Z"}',
            f'{{"token": "{REDACTED}", "expires_at": "2030-01-01T00:00:00Z"}}',
        ),
    ],
)
def test_token_shapes_and_json_token_fields(text: str, expected: str) -> None:
    assert scrub_credentials(text) == expected


def test_ordinary_text_is_left_alone() -> None:
    text = "list the open pull requests of acme/infra (git@github.com:acme/infra.git)"
    assert scrub_credentials(text) == text


@pytest.mark.parametrize(
    ("url", "has"),
    [
        ("https://user:pw@github.com/a/b", True),
        ("  ssh://git@github.com/a/b  ", True),
        ("https://github.com/a/b", False),
        ("git@github.com:a/b.git", False),
        ("/srv/repos/infra", False),
    ],
)
def test_has_url_userinfo(url: str, has: bool) -> None:
    assert has_url_userinfo(url) is has
