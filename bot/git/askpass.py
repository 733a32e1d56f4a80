"""Giving git a token without putting it in argv, a URL, a file or a log line.

git asks `GIT_ASKPASS` for a username and a password when an https remote needs them. We write a
tiny script (mode 0700, in a private 0700 temp directory) that prints the username, or the token
read from an environment variable of the git process. The token therefore lives only in the
bot's memory and in the environment of the git child: `ps` shows argv, not environment, of other
users' processes, and the script file itself holds no secret.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

TOKEN_VAR = "TANKA_BOT_GIT_TOKEN"  # noqa: S105 - the variable name, not a token
USERNAME_VAR = "TANKA_BOT_GIT_USERNAME"
# GitHub accepts any username with a token; this one works for PATs and App installation tokens.
DEFAULT_USERNAME = "x-access-token"

# git calls the helper with a prompt such as "Username for 'https://github.com': ".
_SCRIPT = f"""#!/bin/sh
case "$1" in
  Username*|username*) printf '%s\\n' "${{{USERNAME_VAR}}}" ;;
  *) printf '%s\\n' "${{{TOKEN_VAR}}}" ;;
esac
"""


@dataclass(frozen=True, slots=True)
class TokenCredentials:
    """Where a token comes from; called per git command because App tokens expire hourly."""

    token: Callable[[], str]
    username: str = DEFAULT_USERNAME


@contextmanager
def askpass_env(credentials: TokenCredentials | None) -> Iterator[tuple[dict[str, str], str]]:
    """The environment that lets git authenticate, and the token to redact from its output.

    With no credentials, git is only told never to prompt (a public or local remote).
    """
    if credentials is None:
        yield {"GIT_TERMINAL_PROMPT": "0"}, ""
        return
    token = credentials.token()
    scratch = Path(tempfile.mkdtemp(prefix="tanka-bot-askpass-"))  # created 0700
    try:
        script = scratch / "askpass.sh"
        script.write_text(_SCRIPT)
        script.chmod(0o700)
        yield (
            {
                "GIT_ASKPASS": str(script),
                "GIT_TERMINAL_PROMPT": "0",
                TOKEN_VAR: token,
                USERNAME_VAR: credentials.username,
            },
            token,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
