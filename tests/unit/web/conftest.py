"""The web view in-process, against the real fakes: Slack's Web API simulator and a local OIDC
provider signing real RS256 tokens. `Browser` keeps cookies the way a browser does and calls
the WSGI app directly; the provider is reached over real HTTP."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from prometheus_client import CollectorRegistry
from slack_sdk import WebClient

from bot.config import Settings
from bot.domain.proposal import Proposal
from bot.domain.sessions import PullRequestRecord, Session
from bot.domain.thread import ThreadKey
from bot.policy.teams import Teams
from bot.store.history import MemoryHistory
from bot.store.memory import MemoryStore
from bot.telemetry.audit_log import JsonLinesAudit
from bot.telemetry.history import Recorder
from bot.web.app import WebApp, build_web
from fakes.oidc_server import OidcServer
from fakes.slack_server import SlackServer

CHANNEL = "C0DEPLOY"
OTHER = "C0OTHER"
ALICE, BOB, CAROL, OPS = "U0ALICE", "U0BOB", "U0CAROL", "U0OPS"
WEB_SECRET = "a-web-secret-of-more-than-32-bytes-0123456789"
SECRET_VALUE = "s3cr3t-db-password-7f2a"
DEV = "environments/dev/main.jsonnet"


@dataclass
class Response:
    status: int
    headers: list[tuple[str, str]]
    body: str

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def cookies(self) -> list[str]:
        return [v for k, v in self.headers if k.lower() == "set-cookie"]


@dataclass
class Browser:
    app: WebApp
    jar: dict[str, str] = field(default_factory=dict)

    def call(self, method: str, url: str) -> Response:
        parts = urlsplit(url)
        cookie = "; ".join(f"{k}={v}" for k, v in self.jar.items())
        environ: dict[str, Any] = {
            "REQUEST_METHOD": method, "PATH_INFO": parts.path, "QUERY_STRING": parts.query,
            "HTTP_COOKIE": cookie, "wsgi.input": io.BytesIO(b""), "CONTENT_LENGTH": "0",
        }  # fmt: skip
        got: dict[str, Any] = {}

        def start(status: str, headers: list[tuple[str, str]]) -> None:
            got["status"], got["headers"] = int(status.split(maxsplit=1)[0]), headers

        body = b"".join(self.app(environ, start)).decode()
        response = Response(got["status"], got["headers"], body)
        for raw in response.cookies():
            jar: SimpleCookie = SimpleCookie(raw)
            for name, morsel in jar.items():
                if morsel["max-age"] == "0":
                    self.jar.pop(name, None)
                else:
                    self.jar[name] = morsel.value
        return response

    def get(self, url: str) -> Response:
        return self.call("GET", url)

    def sign_in(self, next_path: str = "/ui/") -> Response:
        """Through the provider's authorization endpoint and back; the callback's answer."""
        login = self.get(f"/ui/login?next={next_path}")
        assert login.status == 303, login.body
        at_idp = requests.get(login.header("Location") or "", allow_redirects=False, timeout=10)
        back = urlsplit(at_idp.headers["Location"])
        return self.get(f"{back.path}?{back.query}")


@dataclass
class View:
    app: WebApp
    idp: OidcServer
    slack: SlackServer
    recorder: Recorder
    registry: CollectorRegistry
    store: MemoryStore

    def browser(self) -> Browser:
        return Browser(self.app)

    def signed_in(self, user: str) -> Browser:
        self.idp.user = slack_user(user)
        browser = self.browser()
        assert browser.sign_in().status == 303
        return browser

    def metric(self, name: str, labels: Mapping[str, str]) -> float:
        return self.registry.get_sample_value(name, dict(labels)) or 0.0


def slack_user(user: str, team: str = "T0TEAM") -> dict[str, Any]:
    return {"sub": user, "https://slack.com/user_id": user, "https://slack.com/team_id": team,
            "email": f"{user.lower()}@example.com", "name": user}  # fmt: skip


def web_settings(issuer: str, slack: SlackServer, *, url: str = "http://bot.test",
                 admins: tuple[str, ...] = (OPS,)) -> Settings:  # fmt: skip
    return Settings(
        TANKA_BOT_WEB_URL=url, TANKA_BOT_OIDC_ISSUER=issuer,
        TANKA_BOT_OIDC_CLIENT_ID="client-1", TANKA_BOT_OIDC_CLIENT_SECRET="secret-1",
        TANKA_BOT_WEB_SECRET=WEB_SECRET, TANKA_BOT_SLACK_API_URL=slack.api_url,
        teams=Teams(admins=admins),
    )  # fmt: skip


@pytest.fixture
def view(tmp_path: Path) -> Iterator[View]:
    with OidcServer() as idp, SlackServer(team_id="T0TEAM") as slack:
        slack.set_members(CHANNEL, [ALICE, BOB])
        slack.set_members(OTHER, [CAROL])
        history = MemoryHistory(days=90)
        store = MemoryStore()
        registry = CollectorRegistry()
        app = build_web(
            web_settings(idp.issuer, slack), store=store, history=history,
            audit=JsonLinesAudit(tmp_path / "audit", retention=86_400, max_events=1000),
            slack=WebClient(token=slack.bot_token, base_url=slack.api_url), registry=registry,
        )  # fmt: skip
        assert app is not None
        yield View(app, idp, slack, Recorder(history), registry, store)


def record_session(recorder: Recorder, channel: str = CHANNEL, ts: str = "1700000000.000100",
                   *, request: str = "scale grafana in dev to 3") -> ThreadKey:  # fmt: skip
    """A session as a turn, a proposal, an approval and a pull request leave it in the history;
    its texts hold `<script>` and a Secret value masked as the audit writer masks them."""
    key = ThreadKey(channel, ts)
    proposal = Proposal(base_commit="abc", tree="t", diff_hash="h", files=(DEV,),
                        envs=("environments/dev",), title="Scale <script>alert(1)</script>",
                        approved_by=(BOB,), created=1_700_000_100.0)  # fmt: skip
    session = Session(channel=channel, thread_ts=ts, requester=ALICE, request=request,
                      created=1_700_000_000.0, updated=1_700_000_200.0, base_branch="main",
                      proposals=[proposal], turns=1, input_tokens=1200, output_tokens=80,
                      pull_request=PullRequestRecord(number=412, url="https://github.test/acme/infra/pull/412",
                                                     branch="tanka-bot/x"))  # fmt: skip
    recorder.session(session, lambda text: text)
    recorder.keep("answer", key, "1", {
        "turn": 1, "at": 1_700_000_150.0, "text": "Done. <script>alert('answer')</script>",
        "input_tokens": 1200, "output_tokens": 80, "cost": 0.0123, "tool_calls": 2,
    })  # fmt: skip
    recorder.keep("proposal", key, "1", {
        "number": 1, "created": 1_700_000_100.0, "title": proposal.title,
        "summary": "environments/dev: 0 added, 1 changed, 0 removed",
        "diff": "--- a/environments/dev/main.jsonnet\n+++ b/environments/dev/main.jsonnet\n"
                "@@ -1 +1 @@\n-replicas=1\n+replicas=3 // <script>alert('repo')</script>\n"
                "+password: [redacted]\n",
        "rendered": "--- environments/dev\n+++ environments/dev\n@@ -1 +1 @@\n-  replicas: 1\n"
                    "+  replicas: 3\n",
        "checks": ":white_check_mark: 0 errors", "note": "",
    })  # fmt: skip
    for event, user, details in (
        ("approval", CAROL, {"accepted": False, "proposal": 1, "why": "not one of the approvers"}),
        ("approval", BOB, {"accepted": True, "proposal": 1, "why": "complete"}),
        ("pr_opened", BOB, {"number": 412}),
        ("github_event", "", {"event": "CheckRunUpdate", "pr": 412, "check": "ci/build",
                              "status": "completed", "conclusion": "success", "url": ""}),
    ):  # fmt: skip
        recorder.event({"time": "2023-11-14T22:15:00.000Z", "channel": channel, "thread": ts,
                        "user": user, "event": event, "details": details})  # fmt: skip
    return key


def page_json(body: str) -> Any:
    return json.loads(body)
