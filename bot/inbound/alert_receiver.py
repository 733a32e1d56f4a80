"""`POST /alerts/alertmanager`: authenticate, parse, hand off, acknowledge.

Alertmanager's webhook sends `Authorization: Bearer <token>` (its receiver's
`http_config.authorization`); the token is compared in constant time before the body is parsed,
and a missing or wrong one is answered 401 (logged without the header). The body is bounded like
Slack's. A notification that is not Alertmanager's version-4 payload is answered 400 saying what
is wrong (Alertmanager logs the answer). `hand_off` only queues the work (a session, a note): the
ack never waits for Slack or the model, so Alertmanager's webhook timeout is never reached; when
it cannot be queued (the store is down, the queue is full), 503 makes Alertmanager retry.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from bot.domain.alerts import AlertNotification, AlertPayloadError, parse_notification
from bot.inbound.http import MAX_BODY, StartResponse, read_body, reply
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

PATH = "/alerts/alertmanager"
_SCHEME = "bearer "


def authorized(expected: bytes, header: str) -> bool:
    """Whether `header` is `Bearer <expected>`; the token compared in constant time."""
    if header[: len(_SCHEME)].lower() != _SCHEME:
        return False
    given = header[len(_SCHEME) :].strip().encode("utf-8", "surrogateescape")
    return hmac.compare_digest(given, expected)


class AlertReceiver:
    """A WSGI app for the alerts path; HealthApp routes `POST /alerts/alertmanager` to it."""

    def __init__(
        self, token: str, metrics: Metrics, hand_off: Callable[[AlertNotification], str | None]
    ) -> None:
        self.token = token.encode()
        self.metrics = metrics
        self.hand_off = hand_off

    def __call__(self, environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        header = environ.get("HTTP_AUTHORIZATION", "")
        if not authorized(self.token, header):
            self.metrics.errors.labels("alerts_auth").inc()
            log.warning("refused an Alertmanager notification with a %s token from %s",
                        "missing" if not header else "wrong",
                        environ.get("REMOTE_ADDR", "?"))  # fmt: skip
            return reply(start, "401 Unauthorized", b"missing or wrong bearer token\n")
        body = read_body(environ, MAX_BODY)
        if body is None:
            return reply(start, "413 Payload Too Large", b"request body too large\n")
        try:
            notification = parse_notification(json.loads(body))
        except (ValueError, UnicodeDecodeError) as exc:
            why = str(exc) if isinstance(exc, AlertPayloadError) else "the body is not JSON"
            log.warning("refused an Alertmanager notification: %s", why)
            return reply(start, "400 Bad Request", f"{why}\n".encode())
        self.metrics.events.labels(f"alertmanager:{notification.status}").inc()
        if self.hand_off(notification) is not None:  # not queued: Alertmanager retries a 5xx
            return reply(start, "503 Service Unavailable", b"busy; retry later\n")
        self.metrics.ack_seconds.observe(time.perf_counter() - started)
        return reply(start, "200 OK", b"taken\n")
