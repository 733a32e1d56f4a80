"""Running git for the bot: isolated environment, timeouts, errors that name the failing command.

Every call goes through `Git.run`. The environment is `tools.sandbox.git_env`: no system or global
git config (so no credential helper, url rewrite or alias from the host can act), no hooks, no
terminal prompt. Credentials arrive only through `extra_env` from `bot.git.askpass`, and every
message this module builds is passed through `scrub_credentials` so a token never reaches a log or
a user.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tools import sandbox
from tools.redaction import has_url_userinfo, scrub_credentials
from tools.registry import ToolError

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 120.0


class GitError(Exception):
    """A git command failed; the message names the subcommand and git's reason, never a secret."""

    def __init__(self, subcommand: str, reason: str, *, returncode: int | None = None) -> None:
        self.subcommand = subcommand
        self.reason = reason
        self.returncode = returncode
        status = f" (exit {returncode})" if returncode is not None else ""
        super().__init__(f"git {subcommand} failed{status}: {reason}")


def refuse_url_credentials(url: str) -> None:
    """Credentials go through askpass only: a URL that carries them is a configuration mistake."""
    if has_url_userinfo(url) and not url.strip().lower().startswith("ssh://"):
        raise GitError(
            "remote",
            f"the repository URL {scrub_credentials(url)} carries credentials; remove them from "
            "the URL and set GITHUB_TOKEN (or the GitHub App settings) instead",
        )


def _subcommand(args: tuple[str, ...]) -> str:
    # `git -C x -c k=v push ...` -> "push": the first argument that is not a global option.
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-C", "-c"):
            skip = True
        elif not arg.startswith("-"):
            return arg
    return "(no subcommand)"


@dataclass(frozen=True, slots=True)
class Git:
    """git bound to a working directory, with optional extra environment and known secrets."""

    cwd: Path
    timeout: float = DEFAULT_TIMEOUT
    extra_env: Mapping[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()

    def with_env(self, extra: Mapping[str, str], secrets: Iterable[str] = ()) -> Git:
        merged = {**self.extra_env, **extra}
        return Git(self.cwd, self.timeout, merged, (*self.secrets, *secrets))

    def run(self, *args: str, input_bytes: bytes | None = None) -> sandbox.CommandResult:
        """Run `git <args>`; GitError unless it exits 0."""
        sub = _subcommand(args)
        log.debug("git %s in %s", scrub_credentials(" ".join(args), self.secrets), self.cwd)
        env = sandbox.git_env(dict(self.extra_env))
        try:
            result = sandbox.run(
                ["git", *args], cwd=self.cwd, timeout=self.timeout, env=env, input_bytes=input_bytes
            )
        except ToolError as exc:  # timeout or git missing
            raise GitError(sub, scrub_credentials(str(exc), self.secrets)) from None
        if not result.ok:
            reason = scrub_credentials(result.error_text() or result.text().strip(), self.secrets)
            raise GitError(sub, _last_lines(reason) or "no message", returncode=result.returncode)
        return result

    def out(self, *args: str) -> str:
        """stdout of `git <args>`, stripped."""
        return self.run(*args).text().strip()

    def ok(self, *args: str) -> bool:
        """Whether `git <args>` exits 0 (for questions such as `rev-parse --verify`)."""
        try:
            self.run(*args)
        except GitError:
            return False
        return True


def _last_lines(text: str, count: int = 6) -> str:
    # git's reason is at the end ("fatal: ..."); progress chatter before it is noise.
    lines = [line for line in text.splitlines() if line.strip()]
    return " | ".join(lines[-count:])
