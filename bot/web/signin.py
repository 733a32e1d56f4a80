"""Sign-in: GET /ui/login starts it, GET /ui/callback ends it, POST /ui/logout ends the session.

The state and the nonce are random per sign-in and kept in a signed cookie of the browser that
started it, so a callback carrying another browser's state (or none) is refused. A token with
Slack's claims must name the bot's workspace; its user is Slack's user id. Another issuer's
token is mapped to a Slack user by its email (users.lookupByEmail). Every refusal is a 4xx page
saying why, and sets no session cookie.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bot.domain.ports import ChatError
from bot.web.cookies import CookieJar, read_cookies
from bot.web.headers import StartResponse, redirect
from bot.web.oidc import Issuer, SigninRefused
from bot.web.settings import WebConfig

log = logging.getLogger(__name__)

SLACK_TEAM = "https://slack.com/team_id"
SLACK_USER = "https://slack.com/user_id"

ErrorPage = Callable[[StartResponse, str, str, list[tuple[str, str]]], list[bytes]]


def safe_next(value: str | None) -> str:
    """`value` when it is a path under /ui/ on this site, else /ui/ (no open redirect)."""
    if not value or "\\" in value or any(ord(c) < 32 for c in value):
        return "/ui/"
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or not parts.path.startswith("/ui/") or value.startswith("//"):
        return "/ui/"
    if ".." in parts.path.split("/"):
        return "/ui/"
    return value


def query(environ: dict[str, Any]) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}


class Signin:
    def __init__(
        self, config: WebConfig, issuer: Issuer, jar: CookieJar, *, team_id: Callable[[], str],
        user_by_email: Callable[[str], str | None], counted: Callable[[str], None],
        error_page: ErrorPage,
    ) -> None:  # fmt: skip
        self.config = config
        self.issuer = issuer
        self.jar = jar
        self._team_id = team_id
        self._user_by_email = user_by_email
        self._counted = counted  # a sign-in's outcome, for /metrics
        self._error_page = error_page

    def login(self, environ: dict[str, Any], start: StartResponse) -> list[bytes]:
        pending, cookie = self.jar.start_signin(safe_next(query(environ).get("next")))
        try:
            url = self.issuer.authorization_url(self.config.redirect_uri, pending.state,
                                                pending.nonce)  # fmt: skip
        except SigninRefused as exc:
            self._counted(exc.reason)
            return self._error_page(start, "502 Bad Gateway", str(exc), [])
        return redirect(start, url, [cookie])

    def callback(self, environ: dict[str, Any], start: StartResponse) -> list[bytes]:
        cleared = self.jar.end_signin()
        try:
            user, next_path = self._complete(environ)
        except SigninRefused as exc:
            self._counted(exc.reason)
            log.info("web: sign-in refused (%s): %s", exc.reason, exc)
            return self._error_page(start, "403 Forbidden", str(exc), [cleared])
        self._counted("ok")
        return redirect(start, next_path, [cleared, self.jar.start_session(user)])

    def logout(self, environ: dict[str, Any], start: StartResponse) -> list[bytes]:
        cookie = self.jar.end_session(read_cookies(environ))
        return redirect(start, "/ui/login?signed_out=1", [cookie])

    def _complete(self, environ: dict[str, Any]) -> tuple[str, str]:
        q = query(environ)
        if "error" in q:
            raise SigninRefused("denied", "the sign-in was cancelled at the provider")
        pending = self.jar.signin(read_cookies(environ))
        if pending is None:
            raise SigninRefused("state", "this sign-in was not started in this browser, or it "
                                "took longer than 10 minutes; sign in again")  # fmt: skip
        if not hmac.compare_digest(q.get("state", "").encode(), pending.state.encode()):
            raise SigninRefused("state", "the sign-in's state does not match this browser's")
        code = q.get("code", "")
        if not code:
            raise SigninRefused("exchange", "the provider sent no authorization code")
        token = self.issuer.exchange(code, self.config.redirect_uri)
        claims = self.issuer.verify(token, pending.nonce)
        return self._user(claims), pending.next

    def _user(self, claims: dict[str, Any]) -> str:
        try:
            if SLACK_TEAM in claims or SLACK_USER in claims:
                if str(claims.get(SLACK_TEAM, "")) != self._team_id():
                    raise SigninRefused("workspace", "you signed in to another Slack workspace "
                                        "than the bot's")  # fmt: skip
                slack_user = str(claims.get(SLACK_USER, ""))
                if not slack_user:
                    raise SigninRefused("token", "the token names no Slack user")
                return slack_user
            email = claims.get("email")
            if not isinstance(email, str) or not email or claims.get("email_verified") is False:
                raise SigninRefused("email", "the provider gave no verified email address")
            user = self._user_by_email(email)
        except ChatError as exc:
            raise SigninRefused("slack", f"Slack could not be asked who you are: {exc}") from None
        if user is None:
            raise SigninRefused("email", "no member of the bot's Slack workspace has your email")
        return user
