"""The headers every /ui/ response sends, and the one way responses are started.

The pages load no script at all, so the policy allows none: an injected `<script>` or inline
handler cannot run even if escaping ever failed. Styles come from the view's own stylesheet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

StartResponse = Callable[..., Any]

SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Security-Policy",
     "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
     "base-uri 'none'; frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cache-Control", "no-store"),  # pages are per person; no shared cache may keep them
)  # fmt: skip


def respond(
    start: StartResponse, status: str, body: bytes, kind: str = "text/html",
    extra: Sequence[tuple[str, str]] = (),
) -> list[bytes]:  # fmt: skip
    headers = [("Content-Type", f"{kind}; charset=utf-8"), ("Content-Length", str(len(body))),
               *SECURITY_HEADERS, *extra]  # fmt: skip
    start(status, headers)
    return [body]


def redirect(
    start: StartResponse, location: str, extra: Sequence[tuple[str, str]] = ()
) -> list[bytes]:
    return respond(start, "303 See Other", b"", "text/plain", [("Location", location), *extra])
