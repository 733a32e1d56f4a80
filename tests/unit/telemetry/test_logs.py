"""The service's JSON log lines name their thread and hide its Secret values."""

from __future__ import annotations

import json
import logging

from bot.telemetry.logs import JsonFormatter, thread_context
from tools.redaction import REDACTED, SecretMask

VALUE = "Xk9<q&Tz>it's-r3al-2026"


def line(message: str, *args: object, exc: BaseException | None = None) -> dict[str, str]:
    record = logging.LogRecord("t", logging.WARNING, __file__, 1, message, args, None)
    if exc is not None:
        record.exc_info = (type(exc), exc, None)
    parsed: dict[str, str] = json.loads(JsonFormatter().format(record))
    return parsed


def test_a_line_in_a_threads_context_is_masked_with_its_values() -> None:
    mask = SecretMask([VALUE])
    error = RuntimeError(f"evaluating: RUNTIME ERROR: bad password {VALUE.upper()}")
    with thread_context("C1:1.2", mask.apply):
        logged = line("jsonnet failed: %s", f"'{VALUE}'", exc=error)
    assert logged["thread"] == "C1:1.2"
    assert logged["message"] == f"jsonnet failed: '{REDACTED}'"
    assert VALUE.upper() not in logged["exception"]
    assert "bad password" in logged["exception"]


def test_outside_a_thread_nothing_is_masked() -> None:
    with thread_context("C1:1.2", SecretMask([VALUE]).apply):
        pass
    logged = line("value %s", VALUE)
    assert logged["message"] == f"value {VALUE}"
    assert "thread" not in logged
