"""A fake GitHub REST API over real HTTP, for PyGithub (and anything else) to talk to.

Serves the endpoints tanka-bot uses on 127.0.0.1:<free port>, optionally under a path prefix as
GitHub Enterprise does (`/api/v3`): repositories, pull requests (list with state/head/base
filters and Link pagination, create, get, update), a commit's check runs, a repository's App
installation and installation access tokens (the App's JWT is verified against the test's public
key). Tokens are checked on every request; installation tokens expire by the fake's clock.
`fail()` injects errors; every request is recorded with its headers. Webhook deliveries are in
fakes.github_webhooks.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from fakes.github_routes import RecordedRequest, Reply, error, route
from fakes.github_state import JSON, FakeCheckRun, FakePull, FakeRepo, iso

Clock = Callable[[], datetime]


@dataclass
class Failure:
    status: int
    body: JSON
    headers: dict[str, str]
    method: str | None
    path: re.Pattern[str] | None
    times: int

    def matches(self, method: str, path: str) -> bool:
        return (self.method in (None, method)) and (
            self.path is None or self.path.search(path) is not None
        )


def new_app_key() -> tuple[str, RSAPublicKey]:
    """A fresh RSA key pair for a test GitHub App: (private PEM text, public key)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    return pem, key.public_key()


def rate_limit_headers(*, reset: int = 1_900_000_000) -> dict[str, str]:
    """Headers of a primary rate limit: nothing remaining until `reset` (epoch seconds)."""
    return {
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": str(reset),
    }


class FakeGitHub:
    def __init__(
        self,
        *,
        prefix: str = "",
        tokens: tuple[str, ...] = (),
        app_id: str | None = None,
        app_public_key: RSAPublicKey | None = None,
        clock: Clock = lambda: datetime.now(UTC),
        token_ttl: timedelta = timedelta(hours=1),
    ) -> None:
        self.prefix = prefix.rstrip("/")
        self.tokens = set(tokens)  # personal tokens accepted on /repos endpoints
        self.app_id = app_id
        self.app_public_key = app_public_key
        self.clock = clock
        self.token_ttl = token_ttl
        self.repos: dict[str, FakeRepo] = {}
        self.issued: dict[str, datetime] = {}  # installation token -> expiry
        self.requests: list[RecordedRequest] = []
        self._failures: list[Failure] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def web_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        return self.web_url + self.prefix

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeGitHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- test set-up -------------------------------------------------------------------

    def add_repo(self, owner: str, name: str, **options: Any) -> FakeRepo:
        repo = FakeRepo(owner, name, **options)
        self.repos[repo.full_name] = repo
        return repo

    def add_pull(self, full_name: str, **fields: Any) -> FakePull:
        repo = self.repos[full_name]
        fields.setdefault("title", f"change {repo.next_number()}")
        fields.setdefault("body", "")
        fields.setdefault("base", repo.default_branch)
        fields.setdefault("author", "someone")
        pull = FakePull(number=repo.next_number(), **fields)
        repo.pulls[pull.number] = pull
        return pull

    def add_check_run(
        self, full_name: str, head_sha: str, name: str, **fields: Any
    ) -> FakeCheckRun:
        """A check run on commit `head_sha` (status "queued" unless given); ids keep rising."""
        repo = self.repos[full_name]
        with self._lock:
            run_id = 1 + max((r.id for r in repo.check_runs), default=9000)
            run = FakeCheckRun(id=run_id, head_sha=head_sha, name=name, **fields)
            repo.check_runs.append(run)
        return run

    def fail(
        self,
        status: int,
        message: str = "",
        *,
        method: str | None = None,
        path: str | None = None,
        headers: Mapping[str, str] | None = None,
        body: JSON | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next `times` matching requests (path: regex) with this error."""
        payload = body if body is not None else {"message": message or f"error {status}"}
        pattern = re.compile(path) if path else None
        self._failures.append(Failure(status, payload, dict(headers or {}), method, pattern, times))

    def requests_to(self, method: str, path_regex: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == method and re.search(path_regex, r.path)]

    # --- request handling ---------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            injected = self._take_failure(request)
            if injected is not None:
                return injected
            return route(self, request)

    def _take_failure(self, request: RecordedRequest) -> Reply | None:
        for failure in self._failures:
            if failure.times > 0 and failure.matches(request.method, request.path):
                failure.times -= 1
                return Reply(failure.status, failure.body, failure.headers)
        return None

    def check_token(self, request: RecordedRequest) -> Reply | None:
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() not in ("token", "bearer"):
            return error(401, "Requires authentication")
        expiry = self.issued.get(value)
        if value in self.tokens or (expiry is not None and self.clock() < expiry):
            return None
        return error(401, "Bad credentials")

    def check_jwt(self, request: RecordedRequest) -> Reply | None:
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or self.app_public_key is None:
            return error(401, "A JSON web token could not be decoded")
        try:
            claims = jwt.decode(
                value,
                self.app_public_key,
                algorithms=["RS256"],
                options={"require": ["iat", "exp", "iss"]},
            )
        except jwt.PyJWTError as exc:
            return error(401, f"A JSON web token could not be decoded ({type(exc).__name__})")
        if str(claims["iss"]) != self.app_id:
            return error(401, "'Issuer' claim ('iss') must be the App's id")
        if int(claims["exp"]) - int(claims["iat"]) > 660:
            return error(401, "'Expiration time' claim ('exp') is too far in the future")
        return None

    def issue_token(self) -> JSON:
        token = "ghs_" + secrets.token_urlsafe(27).replace("-", "a").replace("_", "b")
        expires_at = self.clock() + self.token_ttl
        self.issued[token] = expires_at
        return {"token": token, "expires_at": iso(expires_at), "permissions": {}}


def _handler_for(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 10

        def do_GET(self) -> None:
            self._serve()

        do_POST = do_PATCH = do_PUT = do_DELETE = do_GET

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def _serve(self) -> None:
            parts = urlsplit(self.path)
            path = parts.path
            if fake.prefix and path.startswith(fake.prefix):
                path = path[len(fake.prefix) :]
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            request = RecordedRequest(
                method=self.command,
                path=path,
                query=dict(parse_qsl(parts.query)),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=json.loads(raw) if raw else None,
            )
            self._send(fake.handle(request))

        def _send(self, reply: Reply) -> None:
            data = b"" if reply.body is None else json.dumps(reply.body).encode()
            self.send_response(reply.status)
            self.send_header("content-type", "application/json; charset=utf-8")
            self.send_header("content-length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


__all__ = ["FakeGitHub", "RecordedRequest", "Reply", "new_app_key", "rate_limit_headers"]
