"""GitHub App auth: JWT -> installation token, cached and refreshed by an injected clock."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from bot.errors import UserError
from bot.github.auth import AppCredentials, InstallationTokens, read_private_key
from bot.github.code_host import GitHubCodeHost
from bot.github.errors import AuthError, NotFound
from bot.github.logs import SecretFilter
from fakes.github_server import FakeGitHub, new_app_key

APP_ID = "31337"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)

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
    with FakeGitHub(app_id=APP_ID, app_public_key=app_key[1], clock=clock) as server:
        server.add_repo("acme", "infra", installation_id=777)
        yield server


def tokens_for(
    fake: FakeGitHub, pem: str, clock: Clock, installation_id: int | None = None
) -> InstallationTokens:
    return InstallationTokens(
        AppCredentials(APP_ID, pem, installation_id),
        repo=("acme", "infra"),
        base_url=fake.url,
        clock=clock,
    )


def test_discovers_the_installation_and_uses_its_token(
    fake: FakeGitHub, app_key: tuple[str, RSAPublicKey], clock: Clock
) -> None:
    tokens = tokens_for(fake, app_key[0], clock)
    host = GitHubCodeHost(owner="acme", name="infra", tokens=tokens, api_url=fake.url,
                          write_interval=None)  # fmt: skip
    try:
        host.open_pull_requests()
    finally:
        host.close()

    discovery, grant, listing = fake.requests
    assert (discovery.method, discovery.path) == ("GET", "/repos/acme/infra/installation")
    assert discovery.headers["authorization"].startswith("Bearer ey")  # the App's JWT
    assert (grant.method, grant.path) == ("POST", "/app/installations/777/access_tokens")
    [issued] = fake.issued
    assert listing.headers["authorization"] == f"token {issued}"


def test_configured_installation_id_skips_discovery(
    fake: FakeGitHub, app_key: tuple[str, RSAPublicKey], clock: Clock
) -> None:
    tokens = tokens_for(fake, app_key[0], clock, installation_id=777)
    try:
        tokens.token()
    finally:
        tokens.close()
    assert [r.path for r in fake.requests] == ["/app/installations/777/access_tokens"]


def test_token_is_cached_then_refreshed_five_minutes_before_expiry(
    fake: FakeGitHub, app_key: tuple[str, RSAPublicKey], clock: Clock
) -> None:
    tokens = tokens_for(fake, app_key[0], clock, installation_id=777)
    try:
        first = tokens.token()
        clock.now += timedelta(minutes=54)
        assert tokens.token() == first
        clock.now += timedelta(minutes=1, seconds=1)  # 4m59s before the hour is up
        second = tokens.token()
    finally:
        tokens.close()

    assert second != first
    assert len(fake.requests_to("POST", "access_tokens")) == 2
    assert set(tokens.secrets()) == {first, second}


def test_push_gets_a_fresh_token_after_expiry(
    fake: FakeGitHub, app_key: tuple[str, RSAPublicKey], clock: Clock
) -> None:
    tokens = tokens_for(fake, app_key[0], clock, installation_id=777)
    host = GitHubCodeHost(owner="acme", name="infra", tokens=tokens, api_url=fake.url,
                          write_interval=None)  # fmt: skip
    try:
        first = host.token_for_push()
        clock.now += timedelta(hours=2)
        # The fake now rejects `first`; a request still works because the token is renewed.
        assert host.open_pull_requests() == []
        assert host.token_for_push() != first
    finally:
        host.close()


def test_key_of_another_app_is_an_auth_error(fake: FakeGitHub, clock: Clock) -> None:
    other_pem, _ = new_app_key()
    tokens = tokens_for(fake, other_pem, clock, installation_id=777)
    try:
        with pytest.raises(AuthError, match="check GITHUB_APP_ID and that the private key"):
            tokens.token()
    finally:
        tokens.close()


def test_app_not_installed_on_the_repository(
    fake: FakeGitHub, app_key: tuple[str, RSAPublicKey], clock: Clock
) -> None:
    fake.repos["acme/infra"].installation_id = None
    tokens = tokens_for(fake, app_key[0], clock)
    try:
        with pytest.raises(NotFound, match="GITHUB_APP_INSTALLATION_ID"):
            tokens.token()
    finally:
        tokens.close()


def test_installation_tokens_stay_out_of_logs(
    fake: FakeGitHub,
    app_key: tuple[str, RSAPublicKey],
    clock: Clock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    tokens = tokens_for(fake, app_key[0], clock)
    host = GitHubCodeHost(owner="acme", name="infra", tokens=tokens, api_url=fake.url,
                          write_interval=None)  # fmt: skip
    try:
        host.open_pull_requests()
    finally:
        host.close()
    [issued] = fake.issued
    jwt_sent = fake.requests[0].headers["authorization"].split()[1]
    assert caplog.records
    assert issued not in caplog.text
    assert jwt_sent not in caplog.text


def test_secret_filter_rewrites_records_that_carry_tokens() -> None:
    record = logging.LogRecord(
        "github.Requester", logging.DEBUG, __file__, 1,
        "POST %s ==> %s", ("/app/installations/1/access_tokens",
                           '{"token": "v1.abcdef", "other": "ghs_0123456789abcdef", "x": "mine"}'),
        None,
    )  # fmt: skip
    SecretFilter(lambda: ["mine"]).filter(record)
    text = record.getMessage()
    assert "v1.abcdef" not in text
    assert "ghs_0123456789abcdef" not in text
    assert "mine" not in text
    assert text.startswith("POST /app/installations/1/access_tokens")


# --- the private key -------------------------------------------------------------------


def test_private_key_from_text_with_escaped_newlines(app_key: tuple[str, RSAPublicKey]) -> None:
    one_line = app_key[0].strip().replace("\n", "\\n")
    assert read_private_key(one_line, None) == app_key[0]


def test_private_key_from_a_file(app_key: tuple[str, RSAPublicKey], tmp_path: Path) -> None:
    path = tmp_path / "app.pem"
    path.write_text(app_key[0])
    assert read_private_key(None, path) == app_key[0]


def test_missing_key_file_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="GITHUB_APP_PRIVATE_KEY_PATH: cannot read"):
        read_private_key(None, tmp_path / "absent.pem")


def test_garbage_key_is_refused_without_echoing_it() -> None:
    with pytest.raises(UserError, match="not an unencrypted PEM private key") as caught:
        read_private_key("-----BEGIN " + "RSA PRIVATE KEY-----\nnotakey\n", None)
    assert "notakey" not in str(caught.value)


def test_no_key_at_all() -> None:
    with pytest.raises(UserError, match="GITHUB_APP_PRIVATE_KEY: required"):
        read_private_key(None, None)
