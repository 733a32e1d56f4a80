"""The HTTP surface of `serve`: Slack's requests, /healthz, /readyz and /metrics, as WSGI.

`SignatureGate` checks Slack's request signature before Bolt sees the request, so forged, stale
or unsigned requests are refused with 401 and logged (never with the secret or the body), and
counted; Bolt checks again behind it. The ack latency histogram measures the whole Slack request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from slack_sdk.signature import SignatureVerifier

from bot.git.workspace import RepoCache
from bot.metrics import Metrics
from bot.scheduler import CacheMaintenance
from bot.store.base import Store, StoreUnavailable

log = logging.getLogger(__name__)

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
MAX_BODY = 1 << 20  # Slack's payloads are far smaller; anything bigger is not from Slack


class Readiness:
    def __init__(self, *, store: Store, cache: RepoCache, maintenance: CacheMaintenance) -> None:
        self.store = store
        self.cache = cache
        self.maintenance = maintenance

    def problem(self) -> str | None:
        """Why the service should not get traffic now, or None."""
        try:
            self.store.ping()
        except StoreUnavailable as exc:
            return f"session store: {exc}"
        cache = self.cache.problem()
        if cache is not None:
            last = self.maintenance.last_error
            return f"repo cache: {cache}" + (f" (last attempt: {last})" if last else "")
        return None


class _Verifier(Protocol):
    def is_valid_request(self, body: bytes | str, headers: dict[str, str]) -> bool: ...


def _reply(start: StartResponse, status: str, body: bytes, kind: str = "text/plain") -> list[bytes]:
    start(status, [("Content-Type", f"{kind}; charset=utf-8"), ("Content-Length", str(len(body)))])
    return [body]


class SignatureGate:
    def __init__(self, inner: WSGIApp, signing_secret: str, metrics: Metrics,
                 *, verifier: _Verifier | None = None) -> None:  # fmt: skip
        self.inner = inner
        self.verifier = verifier or SignatureVerifier(signing_secret)
        self.metrics = metrics

    def __call__(self, environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            return _reply(start, "413 Payload Too Large", b"request body too large\n")
        body = environ["wsgi.input"].read(length) if length else b""
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
            return _reply(start, "401 Unauthorized", b"invalid request signature\n")
        import io

        environ["wsgi.input"] = io.BytesIO(body)
        try:
            return self.inner(environ, start)
        finally:
            self.metrics.ack_seconds.observe(time.perf_counter() - started)


class HealthApp:
    """Routes: POST /slack/events (when `slack` is given), GET /healthz, /readyz, /metrics."""

    def __init__(self, readiness: Readiness, metrics: Metrics, *, slack: WSGIApp | None) -> None:
        self.readiness = readiness
        self.metrics = metrics
        self.slack = slack

    def __call__(self, environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:  # noqa: PLR0911 - one early return per rule reads best
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if path == "/slack/events" and self.slack is not None:
            if method != "POST":
                return _reply(start, "405 Method Not Allowed", b"POST only\n")
            return self.slack(environ, start)
        if method not in ("GET", "HEAD"):
            return _reply(start, "405 Method Not Allowed", b"GET only\n")
        if path == "/healthz":
            return _reply(start, "200 OK", b"ok\n")
        if path == "/readyz":
            problem = self.readiness.problem()
            if problem is None:
                return _reply(start, "200 OK", b"ready\n")
            return _reply(start, "503 Service Unavailable", f"not ready: {problem}\n".encode())
        if path == "/metrics":
            return _reply(start, "200 OK", self.metrics.render(), "text/plain; version=0.0.4")
        return _reply(start, "404 Not Found", b"not found\n")
