"""owner/name of the GitHub repository, from the setting or the repository URL."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from bot.errors import UserError
from tools.redaction import scrub_credentials

_PART = re.compile(r"^[A-Za-z0-9_.-]+$")
# scp-like ssh: [user@]host:owner/name(.git)
_SCP = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>[^/].*)$")


def parse_repo_slug(url: str) -> tuple[str, str]:
    """(owner, name) from an https, ssh or scp-like git URL on github.com or GitHub Enterprise."""
    text = url.strip()
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme not in {"https", "http", "ssh", "git"}:
            raise _cannot_parse(text, "it is not a network URL")
        path = parts.path
    elif (match := _SCP.match(text)) is not None:
        path = match["path"]
    else:
        raise _cannot_parse(text, "it looks like a local path")
    return _split_path(text, path)


def resolve_repo(setting: str | None, repo_url: str | None) -> tuple[str, str]:
    """TANKA_BOT_GITHUB_REPO when set, else owner/name parsed from TANKA_BOT_REPO_URL."""
    if setting:
        owner, _, name = setting.partition("/")
        if _PART.match(owner) and _PART.match(name):
            return owner, name
        raise UserError(f"TANKA_BOT_GITHUB_REPO must look like owner/name (got {setting!r})")
    if not repo_url:
        raise UserError(
            "GitHub repository unknown: set TANKA_BOT_GITHUB_REPO=owner/name "
            "(or TANKA_BOT_REPO_URL to the repository's GitHub URL)"
        )
    return parse_repo_slug(repo_url)


def _split_path(url: str, path: str) -> tuple[str, str]:
    segments = [s for s in path.strip("/").split("/") if s]
    if len(segments) != 2:
        raise _cannot_parse(url, "the path is not /owner/name")
    owner, name = segments[0], segments[1].removesuffix(".git")
    if not (_PART.match(owner) and _PART.match(name)):
        raise _cannot_parse(url, "owner or name has characters GitHub does not allow")
    return owner, name


def _cannot_parse(url: str, why: str) -> UserError:
    return UserError(
        f"cannot tell the GitHub owner/name from {scrub_credentials(url)!r} ({why}); "
        "set TANKA_BOT_GITHUB_REPO=owner/name"
    )
