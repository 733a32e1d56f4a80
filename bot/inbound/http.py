"""The HTTP surface of `serve` as WSGI: Slack's requests (behind bot.inbound.slack_signature's
gate),
GitHub's webhooks (bot.inbound.github_receiver), Alertmanager's (bot.inbound.alert_receiver),
/healthz, /readyz and /metrics."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from bot.runtime.scheduler import CacheMaintenance
from bot.store.base import Health, StoreUnavailable
from bot.telemetry.metrics import Metrics
from bot.workspace.repo_cache import RepoCache

log = logging.getLogger(__name__)

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
# The most the bot reads of one request, from anyone: an HTTP body on any route (Slack,
# GitHub, Alertmanager) and a Socket Mode message. What these senders post is far smaller (the
# largest, a GitHub check run, carries a summary and a text of at most 65,535 characters each).
# It is waitress's own limit too (bot.app), so a larger body is refused before it is read, with
# or without a Content-Length, and the socket drops a larger frame unread
# (bot.inbound.slack_socket): without that, a client with no credentials could make the bot
# buffer a GiB per connection on disk before any token or signature was checked.
MAX_BODY = 1 << 20
# waitress refuses a declared length >= its `max_request_body_size` and a chunked body once
# that many bytes (chunk framing included) arrived: one above ours leaves a body of exactly
# MAX_BODY bytes the app's to judge. waitress keeps a body in memory up to its
# `inbuf_overflow` (512 KiB) and spills the rest to an unlinked temporary file, so a
# connection holds at most MAX_BODY on disk (and one read of 8 KiB that crossed it).
SERVER_MAX_BODY = MAX_BODY + 1


class Ready(Protocol):
    def problem(self) -> str | None:
        """Why the service should not get traffic now, or None."""
        ...

    def notes(self) -> str:
        """Lines on optional parts that fail, for /readyz's 200 answer."""
        ...


class Readiness:
    def __init__(
        self, *, store: Health, cache: RepoCache, maintenance: CacheMaintenance,
        more: Sequence[CacheMaintenance] = (),
    ) -> None:  # fmt: skip
        self.store = store
        self.cache = cache
        self.maintenance = maintenance
        self.more = more  # teams: the caches of other channels' repositories
        # Parts that may fail without taking the service out of traffic (MCP servers): named in
        # /readyz's 200 answer. Returns name -> what is wrong.
        self.degraded: Callable[[], Mapping[str, str]] = dict
        # When the turns run in a work process (bot.work_process): it keeps the repo caches and
        # the MCP servers, so it alone can say whether they are ready.
        self.worker: Ready | None = None

    def notes(self) -> str:
        """One `degraded: ...` line per failing optional part (each names itself)."""
        if self.worker is not None:
            return self.worker.notes()
        return "".join(f"degraded: {why}\n" for _, why in sorted(self.degraded().items()))

    def problem(self) -> str | None:
        """Why the service should not get traffic now, or None."""
        try:
            self.store.ping()
        except StoreUnavailable as exc:
            return f"session store: {exc}"
        if self.worker is not None:
            return self.worker.problem()
        pairs = [(self.cache, self.maintenance)] + [(m.cache, m) for m in self.more]
        for repo_cache, maintenance in pairs:
            cache = repo_cache.problem()
            if cache is not None:
                last = maintenance.last_error
                where = f" {repo_cache.url}" if self.more else ""
                return f"repo cache{where}: {cache}" + (f" (last attempt: {last})" if last else "")
        if not self.maintenance.fetched.is_set():
            return "repo cache: fetching the repository"
        return None


def reply(start: StartResponse, status: str, body: bytes, kind: str = "text/plain") -> list[bytes]:
    start(status, [("Content-Type", f"{kind}; charset=utf-8"), ("Content-Length", str(len(body)))])
    return [body]


def read_body(environ: dict[str, Any], limit: int) -> bytes | None:
    """The request body, or None when its declared length is missing-but-invalid or over `limit`
    (answered 413 by the caller: nothing that large is read into memory)."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None
    if length < 0 or length > limit:
        return None
    return environ["wsgi.input"].read(length) if length else b""


class HealthApp:
    """Routes: POST /slack/events (when `slack` is given), POST /github/webhook (when `github`
    is given, else 404), POST /alerts/alertmanager (when `alerts` is given, else 404),
    GET /healthz, /readyz, /metrics, and /ui/ (when `web` is given, else 404)."""

    def __init__(self, readiness: Readiness, metrics: Metrics, *, slack: WSGIApp | None,
                 github: WSGIApp | None = None, alerts: WSGIApp | None = None,
                 web: WSGIApp | None = None) -> None:  # fmt: skip
        self.web = web  # /ui/: the operator web view (bot.web), when TANKA_BOT_WEB_URL is set
        self.readiness = readiness
        self.metrics = metrics
        self.slack = slack
        self.github = github
        self.alerts = alerts

    def __call__(self, environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:  # noqa: PLR0911 - one early return per rule reads best
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if path == "/slack/events" and self.slack is not None:
            if method != "POST":
                return reply(start, "405 Method Not Allowed", b"POST only\n")
            return self.slack(environ, start)
        if path == "/ui" or path.startswith("/ui/"):
            if self.web is None:
                return reply(start, "404 Not Found", b"not found\n")
            return self.web(environ, start)
        # Webhooks exist only with their secret (GITHUB_WEBHOOK_SECRET, TANKA_BOT_ALERTS_TOKEN).
        hooks = {"/github/webhook": self.github, "/alerts/alertmanager": self.alerts}
        if path in hooks:
            hook = hooks[path]
            if hook is None:
                return reply(start, "404 Not Found", b"not found\n")
            if method != "POST":
                return reply(start, "405 Method Not Allowed", b"POST only\n")
            return hook(environ, start)
        if method not in ("GET", "HEAD"):
            return reply(start, "405 Method Not Allowed", b"GET only\n")
        if path == "/healthz":
            return reply(start, "200 OK", b"ok\n")
        if path == "/readyz":
            problem = self.readiness.problem()
            if problem is None:
                return reply(start, "200 OK", f"ready\n{self.readiness.notes()}".encode())
            return reply(start, "503 Service Unavailable", f"not ready: {problem}\n".encode())
        if path == "/metrics":
            return reply(start, "200 OK", self.metrics.render(), "text/plain; version=0.0.4")
        return reply(start, "404 Not Found", b"not found\n")
