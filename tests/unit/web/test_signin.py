"""Sign-in through a local OIDC provider signing real RS256 tokens: the happy path, and each
thing a provider may get wrong or an attacker may try - refused with a 4xx page and no session
cookie."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import jwt
import pytest
import requests

from bot.store.memory import MemoryStore
from bot.web.cookies import CookieJar
from bot.web.oidc import Issuer, SigninRefused
from fakes.oidc_server import rsa_key
from tests.unit.web.conftest import ALICE, CHANNEL, View, record_session, slack_user

SESSION_PAGE = f"/ui/sessions/{CHANNEL}/1700000000.000100"


def test_sign_in_with_slack_then_back_to_the_page_asked_for(view: View) -> None:
    record_session(view.recorder)
    browser = view.browser()
    first = browser.get(SESSION_PAGE)
    assert first.status == 303
    assert (
        first.header("Location")
        == f"/ui/login?next=%2Fui%2Fsessions%2F{CHANNEL}%2F1700000000.000100"
    )

    login = browser.get(first.header("Location") or "")
    asked = parse_qs(urlsplit(login.header("Location") or "").query)
    assert asked["scope"] == ["openid profile email"]
    assert asked["redirect_uri"] == ["http://bot.test/ui/callback"]
    assert asked["state"][0]
    assert asked["nonce"][0]
    assert asked["state"] != asked["nonce"]

    view.idp.user = slack_user(ALICE)
    done = browser.sign_in(SESSION_PAGE)
    assert done.status == 303
    assert done.header("Location") == SESSION_PAGE
    [_, session_cookie] = done.cookies()  # the sign-in's cookie cleared, the session's set
    assert session_cookie.startswith("tb_session=")
    assert "HttpOnly" in session_cookie
    assert "SameSite=Lax" in session_cookie
    assert "Max-Age=43200" in session_cookie
    assert "Secure" not in session_cookie  # http://: a Secure cookie would never come back
    page = browser.get(SESSION_PAGE)
    assert page.status == 200
    assert "scale grafana in dev to 3" in page.body
    assert view.metric("tanka_bot_web_signins_total", {"outcome": "ok"}) == 1


def refused(view: View, browser_state: str | None = None) -> tuple[int, str, list[str]]:
    browser = view.browser()
    login = browser.get("/ui/login")
    at_idp = requests.get(login.header("Location") or "", allow_redirects=False, timeout=10)
    back = urlsplit(at_idp.headers["Location"])
    query = back.query
    if browser_state is not None:
        query = query.replace("state=", f"state={browser_state}")
    answer = browser.get(f"{back.path}?{query}")
    assert "tb_session" not in browser.jar
    assert browser.get("/ui/").status == 303  # still signed out
    return answer.status, answer.body, [c for c in answer.cookies() if "tb_session" in c]


@pytest.mark.parametrize(
    ("plant", "outcome", "says"),
    [
        ("state", "state", "state does not match"),
        ("key", "token", "not valid"),
        ("audience", "token", "another client"),
        ("nonce", "nonce", "not made for this sign-in"),
        ("workspace", "workspace", "another Slack workspace"),
        ("expired", "expired", "expired"),
        ("issuer", "token", "not valid"),
    ],
)
def test_refused_sign_ins(view: View, plant: str, outcome: str, says: str) -> None:
    view.idp.user = slack_user(ALICE)
    tamper = None
    if plant == "state":
        tamper = "x"  # the browser's state with a byte more
    elif plant == "key":
        view.idp.sign_with = rsa_key()  # same kid, another key: the signature fails
    elif plant == "audience":
        view.idp.audience = "someone-else"
    elif plant == "nonce":
        view.idp.nonce = "a-nonce-from-another-sign-in"
    elif plant == "workspace":
        view.idp.user = slack_user(ALICE, team="T0ELSEWHERE")
    elif plant == "expired":
        view.idp.lifetime = -120  # beyond the 30 s leeway
    elif plant == "issuer":
        view.idp.issuer_claim = "https://evil.example"
    status, body, cookies = refused(view, tamper)
    assert status == 403
    assert says in body
    assert cookies == []
    assert view.metric("tanka_bot_web_signins_total", {"outcome": outcome}) == 1


def test_a_callback_without_the_browser_that_started_it_is_refused(view: View) -> None:
    view.idp.user = slack_user(ALICE)
    started = view.browser()
    login = started.get("/ui/login")
    at_idp = requests.get(login.header("Location") or "", allow_redirects=False, timeout=10)
    back = urlsplit(at_idp.headers["Location"])
    other = view.browser()  # an attacker's link followed in another browser: no sign-in cookie
    answer = other.get(f"{back.path}?{back.query}")
    assert answer.status == 403
    assert "not started in this browser" in answer.body
    assert "tb_session" not in other.jar


@pytest.mark.parametrize(
    "target",
    ["https://evil.example/ui/", "//evil.example/ui/", "/elsewhere", "/ui/../metrics",
     "\\\\evil.example", "javascript:alert(1)"],
)  # fmt: skip
def test_next_stays_under_ui(view: View, target: str) -> None:
    view.idp.user = slack_user(ALICE)
    browser = view.browser()
    done = browser.sign_in(quote(target, safe=""))
    assert done.status == 303
    assert done.header("Location") == "/ui/"


def test_another_issuer_is_mapped_by_email(view: View) -> None:
    view.slack.emails["alice@corp.example"] = ALICE
    view.idp.user = {"sub": "okta|123", "email": "alice@corp.example", "email_verified": True}
    browser = view.browser()
    assert browser.sign_in().status == 303
    assert "U0ALICE" in browser.get("/ui/").body
    view.idp.user = {"sub": "okta|456", "email": "stranger@corp.example"}
    status, body, _ = refused(view)
    assert status == 403
    assert "Slack workspace has your email" in body


def test_logout_is_a_post_and_ends_the_session_on_the_server(view: View) -> None:
    browser = view.signed_in(ALICE)
    stolen = dict(browser.jar)
    assert browser.get("/ui/logout").status == 405
    out = browser.call("POST", "/ui/logout")
    assert out.status == 303
    assert "tb_session" not in browser.jar
    browser.jar.update(stolen)  # the old cookie, replayed
    assert browser.get("/ui/").status == 303


def test_a_forged_cookie_is_no_session(view: View) -> None:
    browser = view.signed_in(ALICE)
    token = browser.jar["tb_session"]
    browser.jar["tb_session"] = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert browser.get("/ui/").status == 303


def test_https_cookies_are_secure() -> None:
    _, header = CookieJar("k" * 40, MemoryStore(), secure=True).start_signin("/ui/")
    assert header[1].endswith("; Secure")


@pytest.mark.parametrize("alg", ["HS256", "none"])
def test_a_token_without_an_asymmetric_signature_is_refused(view: View, alg: str) -> None:
    claims = {"iss": view.idp.issuer, "aud": "client-1", "sub": ALICE, "nonce": "n",
              "iat": 1, "exp": 4_000_000_000}  # fmt: skip
    key = "a-shared-secret-of-32-bytes-or-more!!" if alg == "HS256" else ""
    token = jwt.encode(claims, key, algorithm=alg, headers={"kid": view.idp.kid})
    with pytest.raises(SigninRefused, match="not valid"):
        Issuer(view.idp.issuer, "client-1", "secret-1").verify(token, "n")
