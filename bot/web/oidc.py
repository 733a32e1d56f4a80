"""The OpenID Connect issuer: its discovery document, the authorization URL, the code exchange
and the ID token's verification (PyJWT and its JWKS client: signature by the issuer's published
keys, `iss`, `aud`, `exp`, and the `nonce` this browser's sign-in chose).

Any issuer works by its discovery document; Slack ("Sign in with Slack") is the default.
"""

from __future__ import annotations

import hmac
import threading
from typing import Any
from urllib.parse import urlencode

import jwt
import requests

from bot.errors import UserError

TIMEOUT = 10.0
ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"]  # asymmetric only: no HS*


class SigninRefused(UserError):
    """The sign-in cannot complete; the message says why (shown on the 4xx page)."""

    def __init__(self, reason: str, why: str) -> None:
        super().__init__(why)
        self.reason = reason  # a bounded label for /metrics


class Issuer:
    def __init__(self, issuer: str, client_id: str, client_secret: str) -> None:
        self.issuer = issuer
        self.client_id = client_id
        self._secret = client_secret
        self._config: dict[str, Any] | None = None
        self._jwks: jwt.PyJWKClient | None = None
        self._lock = threading.Lock()

    def config(self) -> dict[str, Any]:
        """The discovery document (read once; again after a failure)."""
        with self._lock:
            if self._config is None:
                url = f"{self.issuer}/.well-known/openid-configuration"
                try:
                    response = requests.get(url, timeout=TIMEOUT)
                    response.raise_for_status()
                    data = response.json()
                except (requests.RequestException, ValueError) as exc:
                    raise SigninRefused("issuer", f"the sign-in provider cannot be reached: "
                                        f"{type(exc).__name__}") from None  # fmt: skip
                if not isinstance(data, dict) or data.get("issuer", "").rstrip("/") != self.issuer:
                    raise SigninRefused("issuer", "the provider's discovery document names "
                                        "another issuer")  # fmt: skip
                self._config = data
                self._jwks = jwt.PyJWKClient(str(data["jwks_uri"]), cache_keys=True, timeout=10)
            return self._config

    def authorization_url(self, redirect_uri: str, state: str, nonce: str) -> str:
        query = urlencode({
            "response_type": "code", "client_id": self.client_id, "scope": "openid profile email",
            "redirect_uri": redirect_uri, "state": state, "nonce": nonce,
        })  # fmt: skip
        return f"{self.config()['authorization_endpoint']}?{query}"

    def exchange(self, code: str, redirect_uri: str) -> str:
        """The ID token for an authorization code (client_secret_post, as Slack takes it)."""
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
                "client_id": self.client_id, "client_secret": self._secret}  # fmt: skip
        try:
            response = requests.post(str(self.config()["token_endpoint"]), data=form,
                                     timeout=TIMEOUT)  # fmt: skip
            data = response.json()
        except (requests.RequestException, ValueError) as exc:
            raise SigninRefused("exchange", f"the code could not be exchanged: "
                                f"{type(exc).__name__}") from None  # fmt: skip
        token = data.get("id_token") if isinstance(data, dict) else None
        if response.status_code != 200 or not isinstance(token, str) or data.get("ok") is False:
            raise SigninRefused("exchange", "the provider refused the code")
        return token

    def verify(self, token: str, nonce: str) -> dict[str, Any]:
        """The ID token's claims, once its signature, issuer, audience, expiry and nonce hold."""
        self.config()
        jwks = self._jwks
        if jwks is None:  # pragma: no cover - config() sets it
            raise SigninRefused("issuer", "the provider's keys are unknown")
        try:
            key = jwks.get_signing_key_from_jwt(token)
            claims: dict[str, Any] = jwt.decode(
                token, key.key, algorithms=ALGORITHMS, audience=self.client_id,
                issuer=self.issuer, leeway=30,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )  # fmt: skip
        except jwt.ExpiredSignatureError:
            raise SigninRefused("expired", "the sign-in token has expired; sign in again") from None
        except jwt.InvalidAudienceError:
            raise SigninRefused("token", "the sign-in token is for another client") from None
        except (jwt.PyJWKClientError, jwt.InvalidTokenError) as exc:
            raise SigninRefused("token", f"the sign-in token is not valid "
                                f"({type(exc).__name__})") from None  # fmt: skip
        if not hmac.compare_digest(str(claims.get("nonce", "")).encode(), nonce.encode()):
            raise SigninRefused("nonce", "the sign-in token was not made for this sign-in")
        return claims
