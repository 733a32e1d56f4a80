"""The /ui/ routes as one WSGI app, and `build_web`, which the composition root (bot.app) calls.

Every response goes through bot.web.headers (the security headers). A page without a valid
session cookie redirects to /ui/login, which comes back to it afterwards. The pages are GET
only; POST /ui/logout is the one form that changes anything.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote, urlencode

from prometheus_client import CollectorRegistry, Counter

from bot.config import Settings
from bot.domain.ports import ChatError
from bot.domain.thread import ThreadKey
from bot.policy.groups import GroupCache
from bot.slack.directory import SlackDirectory
from bot.store.base import SessionRecords, StoreUnavailable
from bot.store.history import History
from bot.telemetry.audit_log import AuditStore
from bot.telemetry.history import Recorder, migrate
from bot.web import queries
from bot.web.access import Access
from bot.web.cookies import Blobs, CookieJar, read_cookies
from bot.web.headers import StartResponse, redirect, respond
from bot.web.oidc import Issuer
from bot.web.pages import STYLESHEET, Pages
from bot.web.settings import WebConfig, web_config
from bot.web.signin import Signin, query

log = logging.getLogger(__name__)

STATES = ("running", "idle", "proposed", "approved", "merged", "closed")
MAINTENANCE_EVERY = 3600.0  # seconds between prunes of the history


class WebMetrics:
    """Page views by page and sign-ins by outcome: both label sets are fixed lists."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.views = Counter("tanka_bot_web_page_views_total", "Web view pages served",
                             ["page"], registry=registry)  # fmt: skip
        self.signins = Counter("tanka_bot_web_signins_total", "Web view sign-ins by outcome",
                               ["outcome"], registry=registry)  # fmt: skip

    def signin(self, outcome: str) -> None:
        self.signins.labels(outcome).inc()


class WebApp:
    def __init__(
        self, *, config: WebConfig, signin: Signin, jar: CookieJar, access: Access,
        history: History, audit: AuditStore, metrics: WebMetrics,
        workspace_url: Callable[[], str], pages: Pages | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:  # fmt: skip
        self.config = config
        self.signin = signin
        self.jar = jar
        self.access = access
        self.history = history
        self.audit = audit
        self.metrics = metrics
        self.workspace_url = workspace_url
        self.pages = pages or Pages()
        self.clock = clock

    def __call__(self, environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:  # noqa: PLR0911 - one return per route
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if path == "/ui/logout":
            if method != "POST":
                return self._error(start, "405 Method Not Allowed", "Sign out with the button.")
            return self.signin.logout(environ, start)
        if method not in ("GET", "HEAD"):
            return self._error(start, "405 Method Not Allowed", "This view is read-only.")
        if path == "/ui":
            return redirect(start, "/ui/")
        if path == "/ui/static/style.css":
            return respond(start, "200 OK", STYLESHEET, "text/css")
        if path == "/ui/login":
            self.metrics.views.labels("login").inc()
            if "signed_out" in query(environ):
                return respond(start, "200 OK", self.pages.render("signed_out.html", user=""))
            return self.signin.login(environ, start)
        if path == "/ui/callback":
            return self.signin.callback(environ, start)
        user = self.jar.user(read_cookies(environ))
        if user is None:
            here = path + (f"?{environ['QUERY_STRING']}" if environ.get("QUERY_STRING") else "")
            return redirect(start, "/ui/login?" + urlencode({"next": here}))
        try:
            return self._page(path, user, environ, start)
        except (StoreUnavailable, ChatError) as exc:
            log.warning("web: %s unavailable: %s", path, exc)
            self.metrics.views.labels("unavailable").inc()
            why = f"The bot's {exc.dependency} cannot be reached; try again shortly."
            return self._error(start, "503 Service Unavailable", why, user)

    def _page(  # noqa: PLR0911 - one return per page
        self, path: str, user: str, environ: dict[str, Any], start: StartResponse
    ) -> list[bytes]:
        args = query(environ)
        if path == "/ui/":
            return self._sessions(start, user, args, "sessions", heading="Sessions", state="")
        if path == "/ui/proposals":
            return self._sessions(start, user, args, "proposals", heading="Waiting for approval",
                                  state="proposed")  # fmt: skip
        if path == "/ui/audit":
            self.metrics.views.labels("audit").inc()
            events, filters = queries.audit(
                self.audit, self.history, self.access, user, args, now=self.clock()
            )
            jsonl = urlencode({k: v for k, v in filters.items() if v})
            return self._ok(start, "audit.html", user=user, events=events, filters=filters,
                            jsonl_query=jsonl)  # fmt: skip
        if path == "/ui/audit.jsonl":
            self.metrics.views.labels("audit_jsonl").inc()
            body = b"".join(queries.audit_lines(self.audit, self.history, self.access, user, args,
                                                now=self.clock()))  # fmt: skip
            return respond(start, "200 OK", body, "application/jsonl")
        if path == "/ui/cost":
            self.metrics.views.labels("cost").inc()
            rows = queries.costs(self.history, self.access, user, now=self.clock())
            return self._ok(start, "cost.html", user=user, rows=rows)
        if path.startswith("/ui/sessions/"):
            return self._session(start, user, path.removeprefix("/ui/sessions/"))
        return self._not_found(start, user)

    def _sessions(
        self, start: StartResponse, user: str, args: dict[str, str], page: str, *,
        heading: str, state: str,
    ) -> list[bytes]:  # fmt: skip
        self.metrics.views.labels(page).inc()
        found = queries.sessions(self.history, self.access, user, args, state=state)

        def page_query(number: int) -> str:
            return urlencode({**{k: v for k, v in found.filters.items() if v}, "page": number})

        action = "/ui/" if page == "sessions" else "/ui/proposals"
        return self._ok(start, "sessions.html", user=user, page=found, heading=heading,
                        action=action, states=STATES, fixed_state=bool(state),
                        query=page_query)  # fmt: skip

    def _session(self, start: StartResponse, user: str, rest: str) -> list[bytes]:
        channel, _, thread_ts = rest.partition("/")
        try:
            key = ThreadKey(unquote(channel), unquote(thread_ts))
        except ValueError:
            return self._not_found(start, user)
        detail = queries.session(self.history, self.access, user, key)
        if detail is None:  # not there, or not the reader's to see: the same answer
            return self._not_found(start, user)
        self.metrics.views.labels("session").inc()
        return self._ok(start, "session.html", user=user, s=detail,
                        workspace_url=self.workspace_url())  # fmt: skip

    def _ok(self, start: StartResponse, template: str, **context: Any) -> list[bytes]:
        return respond(start, "200 OK", self.pages.render(template, **context))

    def _not_found(self, start: StartResponse, user: str) -> list[bytes]:
        self.metrics.views.labels("not_found").inc()
        return self._error(start, "404 Not Found", "There is no such page here.", user)

    def _error(self, start: StartResponse, status: str, message: str, user: str = "",
               extra: list[tuple[str, str]] | None = None) -> list[bytes]:  # fmt: skip
        body = self.pages.render("error.html", user=user, heading=status.split(" ", 1)[1],
                                 message=message)  # fmt: skip
        return respond(start, status, body, "text/html", extra or [])


def build_web(
    settings: Settings, *, store: Blobs, history: History, audit: AuditStore, slack: Any,
    registry: CollectorRegistry, maintain: Callable[[], None] | None = None,
) -> WebApp | None:  # fmt: skip
    """The /ui/ app, or None without TANKA_BOT_WEB_URL (/ui/ answers 404). `slack`: the bot's
    Web API client; `maintain`: the history's upkeep, run on a thread of its own."""
    config = web_config(settings)
    if config is None:
        return None
    directory = SlackDirectory(slack)
    pages = Pages()
    jar = CookieJar(config.secret, store, secure=config.secure)
    metrics = WebMetrics(registry)
    workspace: list[str] = []
    team: list[str] = []

    def workspace_url() -> str:
        if not workspace:
            workspace.append(directory.workspace_url())
        return workspace[0]

    def team_id() -> str:
        if not team:
            team.append(directory.workspace_id())
        return team[0]

    def error_page(start: StartResponse, status: str, message: str,
                   extra: list[tuple[str, str]]) -> list[bytes]:  # fmt: skip
        body = pages.render("error.html", user="", heading="Sign-in failed", message=message)
        return respond(start, status, body, "text/html", extra)

    signin = Signin(
        config, Issuer(config.issuer, config.client_id, config.client_secret), jar,
        team_id=team_id, user_by_email=directory.user_by_email, counted=metrics.signin,
        error_page=error_page,
    )  # fmt: skip
    # Who is in a channel: one call per channel every 2 minutes at most (the Home tab's cache).
    channels, groups = (
        GroupCache(directory.channel_members, ttl=120.0),
        GroupCache(directory.group_members),
    )
    access = Access(config.admins, channel_members=channels.members, group_members=groups.members)
    if maintain is not None:
        threading.Thread(target=maintain, name="history", daemon=True).start()
    return WebApp(
        config=config, signin=signin, jar=jar, access=access, history=history, audit=audit,
        metrics=metrics, workspace_url=workspace_url, pages=pages,
    )  # fmt: skip


def upkeep(store: SessionRecords, recorder: Recorder) -> None:
    """Migrate the stored sessions the history lacks, then prune it every hour."""
    log.info("history: %d stored session(s) migrated", migrate(store, recorder))
    while True:
        try:
            gone = recorder.history.prune()
            if gone:
                log.info("history: %d thread(s) past TANKA_BOT_HISTORY_DAYS forgotten", gone)
        except StoreUnavailable as exc:
            log.warning("history: not pruned: %s", exc)
        time.sleep(MAINTENANCE_EVERY)  # a daemon thread: it ends with the process
