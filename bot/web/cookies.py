"""The view's cookies: the signed session (12 hours) and the sign-in in progress (10 minutes).

Both are signed with TANKA_BOT_WEB_SECRET (itsdangerous: a timestamped HMAC, so a changed byte
or an old cookie reads as none). The session cookie also names a record in the store, so POST
/ui/logout ends it on the server: a copy of the cookie kept elsewhere stops working too, on
every replica.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any, Protocol

from itsdangerous import BadSignature, URLSafeTimedSerializer

SESSION_COOKIE = "tb_session"
SIGNIN_COOKIE = "tb_signin"
SESSION_SECONDS = 12 * 3600
SIGNIN_SECONDS = 600


class Blobs(Protocol):
    """The store's blobs (bot.store): where the server keeps each session cookie's record."""

    def put_blob(self, name: str, data: bytes, ttl: float | None) -> None: ...

    def get_blob(self, name: str) -> bytes | None: ...

    def delete_blob(self, name: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Pending:
    """A sign-in started in this browser: what the callback must find again."""

    state: str
    nonce: str
    next: str


def read_cookies(environ: dict[str, Any]) -> dict[str, str]:
    try:
        jar = SimpleCookie(environ.get("HTTP_COOKIE", ""))
    except CookieError:
        return {}
    return {name: morsel.value for name, morsel in jar.items()}


class CookieJar:
    def __init__(self, secret: str, store: Blobs, *, secure: bool) -> None:
        self._sessions = URLSafeTimedSerializer(secret, salt="tanka-bot-web-session")
        self._signins = URLSafeTimedSerializer(secret, salt="tanka-bot-web-signin")
        self._store = store
        self._secure = secure

    def _header(self, name: str, value: str, max_age: int) -> tuple[str, str]:
        secure = "; Secure" if self._secure else ""
        attributes = f"Path=/ui/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}"
        return ("Set-Cookie", f"{name}={value}; {attributes}")

    # -- the session ---------------------------------------------------------------------

    def start_session(self, user: str) -> tuple[str, str]:
        """A new session for `user`: its record stored, its Set-Cookie header returned."""
        sid = secrets.token_urlsafe(24)
        self._store.put_blob(f"web-session:{sid}", user.encode(), SESSION_SECONDS)
        token = self._sessions.dumps({"u": user, "s": sid})
        return self._header(SESSION_COOKIE, token, SESSION_SECONDS)

    def user(self, cookies: dict[str, str]) -> str | None:
        """The signed-in user, or None (no cookie, a bad or old signature, ended on the server)."""
        found = self._session(cookies)
        return found[0] if found is not None else None

    def end_session(self, cookies: dict[str, str]) -> tuple[str, str]:
        found = self._session(cookies)
        if found is not None:
            self._store.delete_blob(f"web-session:{found[1]}")
        return self._header(SESSION_COOKIE, "", 0)

    def _session(self, cookies: dict[str, str]) -> tuple[str, str] | None:
        token = cookies.get(SESSION_COOKIE)
        if not token:
            return None
        try:
            data = self._sessions.loads(token, max_age=SESSION_SECONDS)
        except BadSignature:  # also SignatureExpired
            return None
        if not isinstance(data, dict):
            return None
        user, sid = str(data.get("u", "")), str(data.get("s", ""))
        if not user or not sid or self._store.get_blob(f"web-session:{sid}") != user.encode():
            return None
        return user, sid

    # -- the sign-in in progress ------------------------------------------------------------

    def start_signin(self, next_path: str) -> tuple[Pending, tuple[str, str]]:
        pending = Pending(secrets.token_urlsafe(24), secrets.token_urlsafe(24), next_path)
        token = self._signins.dumps([pending.state, pending.nonce, pending.next])
        return pending, self._header(SIGNIN_COOKIE, token, SIGNIN_SECONDS)

    def signin(self, cookies: dict[str, str]) -> Pending | None:
        token = cookies.get(SIGNIN_COOKIE)
        if not token:
            return None
        try:
            data = self._signins.loads(token, max_age=SIGNIN_SECONDS)
        except BadSignature:
            return None
        if not isinstance(data, list) or len(data) != 3:
            return None
        return Pending(str(data[0]), str(data[1]), str(data[2]))

    def end_signin(self) -> tuple[str, str]:
        return self._header(SIGNIN_COOKIE, "", 0)
