"""Typed errors for the GitHub code host, and the one translation from PyGithub's exceptions.

Callers choose between retrying (RateLimited, Unavailable), telling the user to fix a setting
(AuthError, PermissionDenied, NotFound) and reporting a refused request (Conflict). Every message
says what failed and how to fix it, and never contains a token: `translate` scrubs the secrets
it is given from anything GitHub sent back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import requests
from github import GithubException

from bot.errors import ServiceUnavailable
from tools.redaction import scrub_credentials


class CodeHostError(ServiceUnavailable):
    """A GitHub request failed; the message names the operation, the cause and the fix."""

    dependency = "github"
    retryable = False

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class AuthError(CodeHostError):
    """401: the token or App credentials are wrong or expired."""


class PermissionDenied(CodeHostError):
    """403 without rate limiting: the credentials lack a permission."""


class NotFound(CodeHostError):
    """404 (or an unknown branch): `what` says whether the repository, branch or PR is missing."""

    def __init__(self, message: str, *, what: str, status: int | None = None) -> None:
        super().__init__(message, status=status)
        self.what = what


class RateLimited(CodeHostError):
    """403/429 rate limit: retry after `retry_after` seconds (or at `reset_at`)."""

    retryable = True

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        reset_at: datetime | None = None,
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after
        self.reset_at = reset_at


class Conflict(CodeHostError):
    """422: GitHub refused the request as invalid."""


class AlreadyExists(Conflict):
    """422 "A pull request already exists for ..."."""


class Unavailable(CodeHostError):
    """5xx, timeouts and connection failures: GitHub (or the network) is down; retry later."""

    retryable = True


def translate(
    exc: Exception,
    *,
    action: str,
    missing: str = "repository",
    secrets: Iterable[str] = (),
) -> CodeHostError:
    """Turn a PyGithub / requests failure during `action` into a typed error.

    `missing` names what a 404 means for this request ("repository", "pull request #3", ...).
    """
    hidden = tuple(secrets)
    if isinstance(exc, requests.Timeout):
        return Unavailable(f"{action}: GitHub did not answer in time; try again later")
    if isinstance(exc, requests.ConnectionError):
        detail = scrub_credentials(str(exc), hidden)
        return Unavailable(
            f"{action}: cannot reach GitHub ({detail}); check GITHUB_API_URL and the network"
        )
    if not isinstance(exc, GithubException):
        detail = scrub_credentials(f"{type(exc).__name__}: {exc}", hidden)
        return CodeHostError(f"{action}: unexpected failure ({detail})")
    return _from_status(exc, action, missing, hidden)


def _from_status(
    exc: GithubException, action: str, missing: str, secrets: tuple[str, ...]
) -> CodeHostError:
    status = exc.status
    said = scrub_credentials(_github_message(exc.data), secrets)
    if status in (401, 403, 429):
        headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
        return _refused(action, status, said, headers)
    if status == 404:
        hint = (
            "; check TANKA_BOT_GITHUB_REPO / the repo URL and that the credentials can see it"
            if missing.startswith("repository")
            else ""
        )
        return NotFound(f"{action}: {missing} not found (404){hint}", what=missing, status=404)
    if status == 422:
        return _unprocessable(action, said, _github_errors(exc.data, secrets))
    if status >= 500:
        return Unavailable(
            f"{action}: GitHub is failing ({status} {said}); try again later", status=status
        )
    return CodeHostError(f"{action}: GitHub answered {status} {said}", status=status)


def _refused(action: str, status: int, said: str, headers: Mapping[str, str]) -> CodeHostError:
    if status == 401:
        return AuthError(
            f"{action}: GitHub rejected the credentials (401 {said}); check GITHUB_TOKEN, "
            "or GITHUB_APP_ID and the App's private key",
            status=status,
        )
    if status == 429 or _is_rate_limited(headers, said):
        return _rate_limited(action, status, headers)
    return PermissionDenied(
        f"{action}: GitHub refused it (403 {said}); give the token or App read/write "
        "access to contents and pull requests on this repository",
        status=status,
    )


def _unprocessable(action: str, said: str, errors: list[str]) -> CodeHostError:
    detail = "; ".join(errors) or said
    if "already exists" in detail.lower():
        return AlreadyExists(f"{action}: {detail}", status=422)
    for field in ("head", "base"):
        if f"field {field}: invalid" in detail:
            name = "branch" if field == "head" else "base branch"
            return NotFound(
                f"{action}: the {name} does not exist on GitHub ({detail}); push it first "
                "or check TANKA_BOT_BASE_BRANCH",
                what=name,
                status=422,
            )
    return Conflict(f"{action}: GitHub refused the request (422 {detail})", status=422)


def _is_rate_limited(headers: Mapping[str, str], message: str) -> bool:
    return (
        headers.get("x-ratelimit-remaining") == "0"
        or "retry-after" in headers
        or "rate limit" in message.lower()
    )


def _rate_limited(action: str, status: int, headers: Mapping[str, str]) -> RateLimited:
    retry_after = _number(headers.get("retry-after"))
    reset = _number(headers.get("x-ratelimit-reset"))
    reset_at = datetime.fromtimestamp(reset, UTC) if reset is not None else None
    if retry_after is not None:
        when = f"retry after {retry_after:g}s"
    elif reset_at is not None:
        when = f"the limit resets at {reset_at:%Y-%m-%d %H:%M:%S} UTC"
    else:
        when = "wait a minute and retry"
    return RateLimited(
        f"{action}: GitHub rate limit reached ({status}); {when}",
        status=status,
        retry_after=retry_after,
        reset_at=reset_at,
    )


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _github_message(data: Any) -> str:
    if isinstance(data, Mapping) and isinstance(data.get("message"), str):
        return str(data["message"])
    return "no message"


def _github_errors(data: Any, secrets: tuple[str, ...]) -> list[str]:
    """GitHub's 422 `errors` list, as short phrases ("field head: invalid", or its message)."""
    items = data.get("errors") if isinstance(data, Mapping) else None
    phrases = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping) and item.get("message"):
            phrases.append(str(item["message"]))
        elif isinstance(item, Mapping) and item.get("field"):
            phrases.append(f"field {item['field']}: {item.get('code', 'invalid')}")
        elif isinstance(item, str):
            phrases.append(item)
    return [scrub_credentials(p, secrets) for p in phrases]
