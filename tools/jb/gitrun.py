"""Running git for jb: a timeout, a scrubbed environment, and only the config we choose.

Dependencies are fetched from the network on the model's request, so git here must never
prompt, never run hooks or credential helpers, and never read the service user's or the
system's git config (which could hold credentials or rewrite URLs). Callers that need URL
rewriting (tests serving https://github.com/... from local bare repos through
`url.<file:///...>.insteadOf`, or an operator's mirror) pass it as `config`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from tools.jb.errors import JbError
from tools.registry import ToolError
from tools.sandbox import CommandResult, CommandTimeout, run, scrubbed_env

DEFAULT_TIMEOUT = 180.0

# Applied to every git command, ahead of the caller's config.
_SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", os.devnull),
    ("core.fsmonitor", "false"),
    ("credential.helper", ""),
    ("protocol.ext.allow", "never"),
    ("init.defaultBranch", "main"),
    ("advice.detachedHead", "false"),
    ("gc.auto", "0"),
)

_GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
    "GCM_INTERACTIVE": "never",
}


def _frozen(mapping: Mapping[str, str] | None = None) -> Mapping[str, str]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True, slots=True)
class GitRunner:
    """Runs `git -c k=v ... <args>`; `config` adds settings such as url.<base>.insteadOf."""

    config: Mapping[str, str] = field(default_factory=_frozen)
    timeout: float = DEFAULT_TIMEOUT

    def __call__(self, args: Sequence[str], *, cwd: Path) -> CommandResult:
        argv = ["git"]
        for key, value in (*_SAFE_CONFIG, *self.config.items()):
            argv += ["-c", f"{key}={value}"]
        argv += list(args)
        try:
            return run(argv, cwd=cwd, timeout=self.timeout, env=scrubbed_env(_GIT_ENV))
        except CommandTimeout as exc:  # its message would show only `git -c`
            raise JbError(
                f"git {args[0]} did not finish within {self.timeout:g} s and was stopped; the "
                "remote may be unreachable or the repository too large. Try again later"
            ) from exc
        except ToolError as exc:  # git missing, or the directory gone
            raise JbError(f"git {args[0]} could not start: {exc}") from exc


def last_line(result: CommandResult) -> str:
    """git's most telling complaint: its first `fatal:`/`error:` line, else the last line."""
    lines = [line.strip() for line in result.error_text().splitlines() if line.strip()]
    for line in lines:
        for prefix in ("fatal:", "error:"):
            if line.startswith(prefix):
                return line.removeprefix(prefix).strip().rstrip(".")
    return lines[-1].rstrip(".") if lines else f"exit status {result.returncode}"
