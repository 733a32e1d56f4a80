"""Running git for jb: tools.gitrun's isolation, jb's defaults, and failures as JbError.

Dependencies are fetched from the network on the model's request; `tools.gitrun.Git` already
refuses prompts, hooks, credential helpers and the host's git config. Callers that need URL
rewriting (tests serving https://github.com/... from local bare repos through
`url.<file:///...>.insteadOf`, or an operator's mirror) pass it as `config`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from tools.gitrun import Git, GitError, GitTimeout
from tools.jb.errors import JbError
from tools.sandbox import CommandResult

DEFAULT_TIMEOUT = 180.0

# jb's own defaults, applied ahead of the caller's config: quiet, predictable fetch repositories.
_JB_CONFIG = {"init.defaultBranch": "main", "advice.detachedHead": "false", "gc.auto": "0"}


def _frozen(mapping: Mapping[str, str] | None = None) -> Mapping[str, str]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True, slots=True)
class GitRunner:
    """Runs `git -c k=v ... <args>`; `config` adds settings such as url.<base>.insteadOf."""

    config: Mapping[str, str] = field(default_factory=_frozen)
    timeout: float = DEFAULT_TIMEOUT

    def __call__(self, args: Sequence[str], *, cwd: Path) -> CommandResult:
        git = Git(cwd, self.timeout, config=_frozen({**_JB_CONFIG, **self.config}))
        try:
            return git.result(*args)
        except GitTimeout as exc:  # its message would show only `git -c`
            raise JbError(
                f"git {args[0]} did not finish within {self.timeout:g} s and was stopped; the "
                "remote may be unreachable or the repository too large. Try again later"
            ) from exc
        except GitError as exc:  # git missing, or the directory gone
            raise JbError(f"git {args[0]} could not start: {exc.reason}") from exc


def last_line(result: CommandResult) -> str:
    """git's most telling complaint: its first `fatal:`/`error:` line, else the last line."""
    lines = [line.strip() for line in result.error_text().splitlines() if line.strip()]
    for line in lines:
        for prefix in ("fatal:", "error:"):
            if line.startswith(prefix):
                return line.removeprefix(prefix).strip().rstrip(".")
    return lines[-1].rstrip(".") if lines else f"exit status {result.returncode}"
