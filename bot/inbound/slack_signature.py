"""Slack's request signature, checked before Bolt sees a request.

Forged, stale or unsigned requests are refused with 401 and logged (never with the secret or the
body) and counted; Bolt checks again behind the gate for what it dispatches (the events the
envelope gate hands to their listener directly are checked here only). The ack latency histogram
measures the whole Slack request.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Iterable
from typing import Any, Protocol

from slack_sdk.signature import SignatureVerifier

from bot.inbound.http import MAX_BODY, StartResponse, WSGIApp, read_body, reply
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)


class _Verifier(Protocol):
    def is_valid_request(self, body: bytes | str, headers: dict[str, str]) -> bool: ...


class SignatureGate:
    def __init__(self, inner: WSGIApp, signing_secret: str, metrics: Metrics,
                 *, verifier: _Verifier | None = None) -> None:  # fmt: skip
        self.inner = inner
        self.verifier = verifier or SignatureVerifier(signing_secret)
        self.metrics = metrics

    def __call__(self, environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        body = read_body(environ, MAX_BODY)
        if body is None:
            return reply(start, "413 Payload Too Large", b"request body too large\n")
        headers = {
            "x-slack-request-timestamp": environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP", ""),
            "x-slack-signature": environ.get("HTTP_X_SLACK_SIGNATURE", ""),
        }
        try:
            valid = self.verifier.is_valid_request(body, headers)
        except ValueError:  # slack_sdk raises on a blank or non-numeric timestamp, non-UTF-8 body
            valid = False
        if not valid:
            self.metrics.errors.labels("signature").inc()
            log.warning(
                "refused a Slack request with a %s signature from %s",
                "missing" if not headers["x-slack-signature"] else "bad or stale",
                environ.get("REMOTE_ADDR", "?"),
            )
            return reply(start, "401 Unauthorized", b"invalid request signature\n")
        environ["wsgi.input"] = io.BytesIO(body)
        try:
            return self.inner(environ, start)
        finally:
            self.metrics.ack_seconds.observe(time.perf_counter() - started)
