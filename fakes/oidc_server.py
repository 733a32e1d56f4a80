"""A local OpenID Connect provider: discovery, an authorization endpoint that signs the test's
user in at once, a token endpoint issuing RS256 ID tokens, and the JWKS.

Keys are made here, per fake (a fresh RSA key each), so tokens are real signatures the relying
party checks with a real library. A test plants what a provider may get wrong or an attacker may
try: another key (`sign_with`), audience, nonce, issuer, a token already expired, other claims.

    with OidcServer(claims={"https://slack.com/team_id": "T0TEAM", ...}) as idp:
        settings: TANKA_BOT_OIDC_ISSUER=idp.issuer
        idp.user = {"sub": "U0ALICE", "https://slack.com/user_id": "U0ALICE", ...}
"""

from __future__ import annotations

import secrets
import time
from typing import Any
from urllib.parse import parse_qs, urlencode

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from fakes.http_server import RecordedRequest, Reply, ScriptedHTTPServer


def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class OidcServer(ScriptedHTTPServer):
    def __init__(self, *, client_id: str = "client-1", client_secret: str = "secret-1") -> None:  # noqa: S107 - a test client's
        super().__init__()
        self.client_id = client_id
        self.client_secret = client_secret
        self.key = rsa_key()
        self.kid = "key-1"
        self.user: dict[str, Any] = {"sub": "user-1", "email": "alice@example.com"}
        # What the next tokens get wrong, set by a test: None is the honest value.
        self.sign_with: rsa.RSAPrivateKey | None = None
        self.audience: str | None = None
        self.nonce: str | None = None
        self.issuer_claim: str | None = None
        self.lifetime = 300.0  # negative: a token that expired before it was issued
        self._codes: dict[str, dict[str, str]] = {}  # code -> the authorization request

    @property
    def issuer(self) -> str:
        return self.url

    def validate(self, request: RecordedRequest) -> Reply | None:
        route = {
            "/.well-known/openid-configuration": self._discovery,
            "/authorize": self._authorize,
            "/token": self._token,
            "/jwks": self._jwks,
        }.get(request.path)
        if route is None:
            return Reply(status=404, body={"error": "not_found"})
        return route(request)

    def _discovery(self, request: RecordedRequest) -> Reply:
        return Reply(body={
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "jwks_uri": f"{self.url}/jwks",
            "response_types_supported": ["code"],
            "id_token_signing_alg_values_supported": ["RS256"],
        })  # fmt: skip

    def _authorize(self, request: RecordedRequest) -> Reply:
        """Signs `user` in without a form: redirects back with a code (and the state)."""
        q = {k: v[0] for k, v in request.query.items()}
        if q.get("client_id") != self.client_id or q.get("response_type") != "code":
            return Reply(status=400, body={"error": "invalid_request"})
        code = secrets.token_urlsafe(16)
        self._codes[code] = q
        back = urlencode({"code": code, "state": q.get("state", "")})
        return Reply(status=302, headers={"Location": f"{q['redirect_uri']}?{back}"}, raw=b"")

    def _token(self, request: RecordedRequest) -> Reply:
        form = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
        asked = self._codes.pop(form.get("code", ""), None)
        if (
            asked is None
            or form.get("client_id") != self.client_id
            or form.get("client_secret") != self.client_secret
            or form.get("redirect_uri") != asked.get("redirect_uri")
        ):
            return Reply(status=400, body={"error": "invalid_grant"})
        return Reply(body={"access_token": "at-" + secrets.token_hex(8), "token_type": "Bearer",
                           "id_token": self.id_token(asked.get("nonce", ""))})  # fmt: skip

    def id_token(self, nonce: str) -> str:
        now = time.time()
        claims = {
            "iss": self.issuer_claim or self.issuer,
            "aud": self.audience or self.client_id,
            "iat": int(now),
            "exp": int(now + self.lifetime),
            "nonce": self.nonce if self.nonce is not None else nonce,
            **self.user,
        }
        return jwt.encode(claims, self.sign_with or self.key, algorithm="RS256",
                          headers={"kid": self.kid})  # fmt: skip

    def _jwks(self, request: RecordedRequest) -> Reply:
        public = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return Reply(body={"keys": [{**public, "kid": self.kid, "use": "sig", "alg": "RS256"}]})
