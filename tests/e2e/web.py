"""The web view of a running `tanka-bot serve`: its settings against a fake OIDC provider, and a
client that signs in over real HTTP and reads pages (any replica, whichever URL the settings
name for the callback)."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import requests

from fakes.oidc_server import OidcServer
from tests.e2e.harness import Bot

WEB_SECRET = "e2e-web-secret-of-more-than-32-bytes-5d1c"


def web_env(idp: OidcServer, url: str) -> dict[str, str]:
    return {
        "TANKA_BOT_WEB_URL": url,
        "TANKA_BOT_OIDC_ISSUER": idp.issuer,
        "TANKA_BOT_OIDC_CLIENT_ID": idp.client_id,
        "TANKA_BOT_OIDC_CLIENT_SECRET": idp.client_secret,
        "TANKA_BOT_WEB_SECRET": WEB_SECRET,
    }


def sign_in(bot: Bot) -> requests.Session:
    """A signed-in client of `bot`: the provider's redirect goes to the callback on `bot`."""
    client = requests.Session()
    login = client.get(bot.url + "/ui/login", allow_redirects=False, timeout=10)
    at_idp = client.get(login.headers["Location"], allow_redirects=False, timeout=10)
    back = urlsplit(at_idp.headers["Location"])
    done = client.get(f"{bot.url}{back.path}?{back.query}", allow_redirects=False, timeout=10)
    assert done.status_code == 303, done.text
    return client


def page(client: requests.Session, bot: Bot, path: str, needle: str, timeout: float = 30) -> str:
    """The page once it shows `needle` (the history is written off the turn's thread)."""
    deadline = time.monotonic() + timeout
    while True:
        response = client.get(bot.url + path, allow_redirects=False, timeout=10)
        if response.status_code == 200 and needle in response.text:
            return response.text
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never showed {needle!r}: {response.status_code}\n"
                                 f"{response.text[-3000:]}\n{bot.log()[-3000:]}")  # fmt: skip
        time.sleep(0.2)
