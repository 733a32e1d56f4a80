"""Structured logs for the service: one JSON object a line, carrying the Slack thread key.

The thread key travels in a context variable set by the runner, so every log line a turn causes
(the agent, git, the engine) names its thread without passing it around. The thread's SecretMask
travels with it: a Jsonnet error or a git message that quotes a Secret value is masked in the
log as in Slack.
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

_THREAD: contextvars.ContextVar[str | None] = contextvars.ContextVar("thread", default=None)
_MASK: contextvars.ContextVar[Callable[[str], str] | None] = contextvars.ContextVar(
    "mask", default=None
)


@contextmanager
def thread_context(thread: str, mask: Callable[[str], str] | None = None) -> Iterator[None]:
    token, masked = _THREAD.set(thread), _MASK.set(mask)
    try:
        yield
    finally:
        _MASK.reset(masked)
        _THREAD.reset(token)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        thread = _THREAD.get()
        if thread:
            entry["thread"] = thread
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        mask = _MASK.get()
        if mask is not None:
            for field in ("message", "exception"):
                if isinstance(entry.get(field), str):
                    entry[field] = mask(str(entry[field]))
        return json.dumps(entry, ensure_ascii=False)


def configure_service_logging(level: int) -> None:
    """The service's logs: JSON lines at `level`; the Slack SDK's and urllib3's request details
    (debug level) stay out of them."""
    configure_json_logging(level)
    for noisy in ("slack_sdk", "slack_bolt", "urllib3", "waitress.queue"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def configure_json_logging(level: int) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
