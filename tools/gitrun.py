"""The one way git is run, by the agent's tools, the Tanka engine, jb and the bot alike.

One isolation policy (`git_env`): a scrubbed environment (no credential from the service's own),
no system or global config (so no credential helper, url rewrite or alias from the host can act),
HOME pointing nowhere, no hooks, no fsmonitor, never a terminal prompt, ssh in batch mode, no
optional locks (a status must not take the index lock a concurrent command needs), and a timeout.
Credentials arrive only as `env` (bot.git.askpass) together with the `secrets` to redact, and every
message this module builds is redacted, so a token never reaches a log, the model or a user.

The one exception is `user_config=True`: the local chat asks the user's own git about the user's
own configuration (their identity, their global ignores). It keeps their environment and config,
but still never prompts and never runs hooks.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from tools.errors import ToolError
from tools.redaction import has_url_userinfo, scrub_credentials
from tools.sandbox import CommandResult, CommandTimeout, run, scrubbed_env

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 120.0
# userinfo in a URL (https://user:secret@host) is a credential even if we never put one there:
# an operator might have, and git repeats URLs in its messages.

# Settings no repository or host may change: passed as environment (GIT_CONFIG_COUNT), so they hold
# for every subcommand and cannot be confused with the caller's `-c` settings.
_ISOLATION_CONFIG = (
    ("core.hooksPath", os.devnull),
    ("core.fsmonitor", "false"),
    ("credential.helper", ""),
    ("protocol.ext.allow", "never"),
)
_NEVER_ASK = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
    "GCM_INTERACTIVE": "never",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
}


class GitError(ToolError):
    """A git command failed; the message names the subcommand and git's reason, never a secret.

    A ToolError, so a tool that lets it through reports it to the model as is.
    """

    def __init__(self, subcommand: str, reason: str, *, returncode: int | None = None) -> None:
        self.subcommand = subcommand
        self.reason = reason
        self.returncode = returncode
        status = f" (exit {returncode})" if returncode is not None else ""
        super().__init__(f"git {subcommand} failed{status}: {reason}")


class GitTimeout(GitError):
    """git ran past its timeout and was stopped (with its children)."""


def refuse_url_credentials(url: str) -> None:
    """Credentials go through askpass only: a URL that carries them is a configuration mistake."""
    if has_url_userinfo(url) and not url.strip().lower().startswith("ssh://"):
        raise GitError(
            "remote",
            f"the repository URL {scrub_credentials(url)} carries credentials; remove them from "
            "the URL and set GITHUB_TOKEN (or the GitHub App settings) instead",
        )


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The isolated environment every git call runs under, plus `extra` (askpass, index file)."""
    env = scrubbed_env(
        {
            **_NEVER_ASK,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            # git expands ~ in some settings; point it nowhere rather than at the service's home.
            "HOME": os.devnull,
            "GIT_CONFIG_COUNT": str(len(_ISOLATION_CONFIG)),
        }
    )
    for index, (key, value) in enumerate(_ISOLATION_CONFIG):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    env.update(extra or {})
    return env


def _user_env(extra: Mapping[str, str]) -> dict[str, str]:
    return {**os.environ, **extra, **_NEVER_ASK}


def _frozen(mapping: Mapping[str, str] | None = None) -> Mapping[str, str]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True, slots=True)
class Git:
    """git bound to a working directory.

    `env`: extra environment (askpass, GIT_INDEX_FILE, identity); `secrets`: strings to redact from
    every message; `config`: `-c` settings such as url.<base>.insteadOf; `user_config`: see above.
    """

    cwd: Path
    timeout: float = DEFAULT_TIMEOUT
    env: Mapping[str, str] = field(default_factory=_frozen)
    secrets: tuple[str, ...] = ()
    config: Mapping[str, str] = field(default_factory=_frozen)
    user_config: bool = False

    def with_env(self, extra: Mapping[str, str], secrets: Iterable[str] = ()) -> Git:
        return Git(
            self.cwd, self.timeout, _frozen({**self.env, **extra}), (*self.secrets, *secrets),
            self.config, self.user_config,
        )  # fmt: skip

    def result(self, *args: str, input_bytes: bytes | None = None) -> CommandResult:
        """Run `git <args>` whatever its exit status; GitError only when it cannot run or times
        out (GitTimeout)."""
        sub = _subcommand(args)
        argv = ["git"]
        for key, value in self.config.items():
            argv += ["-c", f"{key}={value}"]
        log.debug("git %s in %s", scrub_credentials(" ".join(args), self.secrets), self.cwd)
        env = _user_env(self.env) if self.user_config else git_env(self.env)
        try:
            return run(
                [*argv, *args], cwd=self.cwd, timeout=self.timeout, env=env, input_bytes=input_bytes
            )
        except CommandTimeout as exc:
            raise GitTimeout(sub, scrub_credentials(str(exc), self.secrets)) from None
        except ToolError as exc:  # git missing, or the directory gone
            raise GitError(sub, scrub_credentials(str(exc), self.secrets)) from None

    def run(self, *args: str, input_bytes: bytes | None = None) -> CommandResult:
        """Run `git <args>`; GitError unless it exits 0."""
        result = self.result(*args, input_bytes=input_bytes)
        if not result.ok:
            reason = scrub_credentials(result.error_text() or result.text().strip(), self.secrets)
            raise GitError(
                _subcommand(args), _last_lines(reason) or "no message", returncode=result.returncode
            )
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

    def redact(self, text: str) -> str:
        return scrub_credentials(text, self.secrets)


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


def _last_lines(text: str, count: int = 6) -> str:
    # git's reason is at the end ("fatal: ..."); progress chatter before it is noise.
    lines = [line for line in text.splitlines() if line.strip()]
    return " | ".join(lines[-count:])
