"""Where the GitHub token comes from: a fixed token, or a GitHub App's installation token.

Installation tokens live an hour; `InstallationTokens` caches one and fetches a new one a few
minutes before it expires, using an injectable clock so tests need no sleeping. The same token
serves the REST client (through `LiveTokenAuth`) and `git push` (through the askpass helper).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

from cryptography.hazmat.primitives.serialization import load_pem_private_key
from github import Auth, GithubIntegration

from bot.errors import UserError
from bot.github.errors import AuthError, CodeHostError, translate

Clock = Callable[[], datetime]

# Refresh this long before expiry, so a token handed to `git push` outlives the push.
REFRESH_MARGIN = timedelta(minutes=5)


def utc_now() -> datetime:
    return datetime.now(UTC)


class TokenSource(Protocol):
    def token(self) -> str:
        """The token to send now (fetching a fresh one if needed)."""
        ...

    def secrets(self) -> tuple[str, ...]:
        """Every secret value issued so far, to redact from messages and logs."""
        ...


class StaticToken:
    def __init__(self, token: str) -> None:
        if not token.strip():
            raise UserError("GITHUB_TOKEN is empty; set it to a token with repo access")
        self._token = token.strip()

    def token(self) -> str:
        return self._token

    def secrets(self) -> tuple[str, ...]:
        return (self._token,)


@dataclass(frozen=True, slots=True)
class AppCredentials:
    app_id: str
    private_key: str  # PEM text
    installation_id: int | None = None


def read_private_key(text: str | None, path: Path | None) -> str:
    """The App's PEM key from the setting's text or file; a clear error if it is not one."""
    if path is not None:
        try:
            text = path.expanduser().read_text(encoding="utf-8")
        except OSError as exc:
            raise UserError(
                f"GITHUB_APP_PRIVATE_KEY_PATH: cannot read {path}: {exc.strerror}; "
                "point it at the App's .pem file"
            ) from None
    if not text:
        raise UserError("GITHUB_APP_PRIVATE_KEY: required with GITHUB_APP_ID; set the PEM text")
    # Keys pasted into one-line environment variables often carry literal "\n" sequences.
    pem = text.strip().replace("\\n", "\n") + "\n"
    try:
        load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError):
        raise UserError(
            "GITHUB_APP_PRIVATE_KEY: not an unencrypted PEM private key; paste the key "
            "GitHub generated for the App (the text of its .pem file)"
        ) from None
    return pem


class InstallationTokens:
    """Installation access tokens of one GitHub App on one repository, cached until near expiry."""

    def __init__(
        self,
        credentials: AppCredentials,
        *,
        repo: tuple[str, str],
        base_url: str,
        timeout: int = 15,
        clock: Clock = utc_now,
        refresh_margin: timedelta = REFRESH_MARGIN,
    ) -> None:
        self._app = Auth.AppAuth(credentials.app_id, credentials.private_key)
        self._installation_id = credentials.installation_id
        self._repo = repo
        self._clock = clock
        self._margin = refresh_margin
        self._integration = GithubIntegration(
            auth=self._app,
            base_url=base_url,
            timeout=timeout,
            retry=None,
            seconds_between_requests=None,
            seconds_between_writes=None,
        )
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires_at = datetime.min.replace(tzinfo=UTC)
        self._issued: list[str] = []

    def token(self) -> str:
        with self._lock:
            if self._token is None or self._clock() >= self._expires_at - self._margin:
                return self._refresh()
            return self._token

    def secrets(self) -> tuple[str, ...]:
        return tuple(self._issued)

    def close(self) -> None:
        self._integration.close()

    def _refresh(self) -> str:
        installation_id = self._installation()
        try:
            grant = self._integration.get_access_token(installation_id)
        except Exception as exc:
            action = f"get an installation token for App installation {installation_id}"
            raise self._error(exc, action, missing="App installation") from None
        expires_at = grant.expires_at
        if expires_at.tzinfo is None:
            expires_at = expires_at.replace(tzinfo=UTC)
        self._token = grant.token
        self._expires_at = expires_at
        self._issued.append(grant.token)
        return grant.token

    def _installation(self) -> int:
        if self._installation_id is None:
            owner, name = self._repo
            try:
                found = self._integration.get_repo_installation(owner, name)
            except Exception as exc:
                raise self._error(
                    exc,
                    f"find the GitHub App installation on {owner}/{name}",
                    missing=f"App installation on {owner}/{name} (install the App on the "
                    "repository or set GITHUB_APP_INSTALLATION_ID)",
                ) from None
            self._installation_id = int(found.id)
        return self._installation_id

    def _error(self, exc: Exception, action: str, *, missing: str) -> CodeHostError:
        error = translate(exc, action=action, missing=missing, secrets=self.secrets())
        if isinstance(error, AuthError):
            # A 401 here is about the App's JWT, not GITHUB_TOKEN.
            return AuthError(
                f"{action}: GitHub rejected the App's credentials (401); check GITHUB_APP_ID "
                "and that the private key belongs to that App (or the clock is badly off)",
                status=401,
            )
        return error


class LiveTokenAuth(Auth.Auth):
    """PyGithub auth that asks the token source on every request, so refreshes take effect."""

    def __init__(self, source: TokenSource) -> None:
        self._source = source

    @property
    def token_type(self) -> str:
        return "token"

    @property
    def token(self) -> str:
        return self._source.token()

    @property
    def _masked_token(self) -> str:
        return "token (removed)"
