"""Keep GitHub tokens out of logs.

PyGithub logs every request and response at DEBUG. It masks the Authorization header, but the
body of `POST /app/installations/{id}/access_tokens` carries the new installation token, which is
logged before we even know it. This filter rewrites such records: known secrets, anything shaped
like a GitHub token, and any JSON "token" field become "[redacted]".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable

# The logger PyGithub's Requester writes to (filters do not apply to propagated records).
GITHUB_LOGGER = "github.Requester"

_TOKEN_SHAPES = re.compile(r"gh[pousr]_[A-Za-z0-9_]{8,}|github_pat_[A-Za-z0-9_]{8,}")
_JSON_TOKEN = re.compile(r"""(["']token["']\s*:\s*["'])[^"']+""")


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    text = _JSON_TOKEN.sub(r"\1[redacted]", text)
    return _TOKEN_SHAPES.sub("[redacted]", text)


class SecretFilter(logging.Filter):
    def __init__(self, secrets: Callable[[], Iterable[str]]) -> None:
        super().__init__()
        self._secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = scrub(message, self._secrets())
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True

    def install(self, logger_name: str = GITHUB_LOGGER) -> None:
        logging.getLogger(logger_name).addFilter(self)

    def uninstall(self, logger_name: str = GITHUB_LOGGER) -> None:
        logging.getLogger(logger_name).removeFilter(self)
