"""Keep GitHub tokens out of logs.

PyGithub logs every request and response at DEBUG. It masks the Authorization header, but the
body of `POST /app/installations/{id}/access_tokens` carries the new installation token, which is
logged before we even know it. This filter rewrites such records with `scrub_credentials`: known
secrets, anything shaped like a GitHub token, and any JSON "token" field are hidden.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from tools.redaction import scrub_credentials

# The logger PyGithub's Requester writes to (filters do not apply to propagated records).
GITHUB_LOGGER = "github.Requester"


class SecretFilter(logging.Filter):
    def __init__(self, secrets: Callable[[], Iterable[str]]) -> None:
        super().__init__()
        self._secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = scrub_credentials(message, self._secrets())
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True

    def install(self, logger_name: str = GITHUB_LOGGER) -> None:
        logging.getLogger(logger_name).addFilter(self)

    def uninstall(self, logger_name: str = GITHUB_LOGGER) -> None:
        logging.getLogger(logger_name).removeFilter(self)
