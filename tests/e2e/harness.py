"""`tanka-bot serve` as a real process, with every outside party faked over real HTTP.

The bot runs `python -m bot serve` with the settings an operator would set. Around it: the Slack
Web API simulator (fakes.slack_server), signed requests into its `/slack/events`, the fake
Anthropic API scripted with tool calls, the fake GitHub REST API, a local bare git repository as
the origin, and optionally a real redis-server. Tests drive it as people would: post a message,
send the event Slack would send, react, and wait for the bot's messages.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakes.anthropic_server import FakeAnthropic
from fakes.github_server import FakeGitHub
from fakes.github_webhooks import WebhookSender
from fakes.slack_events import SlackEventSender, app_mention, message, reaction_added
from fakes.slack_server import SlackMessage, SlackServer
from tests.redis_server import RedisServer
from tests.scenarios.models import AnthropicModel
from tests.scenarios.project import git, make_project

ROOT = Path(__file__).resolve().parents[2]
CHANNEL = "C0DEPLOY"
ALICE = "U0ALICE"  # the requester
BOB = "U0BOB"  # an approver
MALLORY = "U0MALLORY"  # nobody
SIGNING_SECRET = "dummy-signing-secret-e2e-7c1d"
ANTHROPIC_KEY = "dummy-anthropic-e2e-SECRET-41b2"
GITHUB_TOKEN = "ghp_E2eDummyToken0123456789abcdef"
WEBHOOK_SECRET = "dummy-webhook-secret-e2e-93fa"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Bot:
    """One `tanka-bot serve` process."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as response:  # noqa: S310
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout)


@dataclass
class Stack:
    """The fakes and the bot; `start_bot` may be called again after a stop (restart)."""

    tmp: Path
    slack: SlackServer
    model: AnthropicModel
    github: FakeGitHub
    origin: Path
    redis: RedisServer | None
    env: dict[str, str]
    bot: Bot | None = None
    bots: list[Bot] = field(default_factory=list)
    _sender: SlackEventSender | None = None

    def start_bot(
        self, extra: Mapping[str, str] | None = None, *, socket_mode: bool = False,
        port: int | None = None,
    ) -> Bot:  # fmt: skip
        port = port or free_port()  # given: a setting names it (the web view's URL)
        log_path = self.tmp / f"bot-{len(self.bots)}.log"
        env = {**self.env, **(extra or {})}
        args = [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(port)]
        if socket_mode:
            args.append("--socket-mode")
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        bot = Bot(process, port, log_path)
        self.bots.append(bot)
        self.bot = bot
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"the bot exited with {process.returncode}:\n{bot.log()}")
            try:
                # Ready: the store answers and the repo cache is cloned (in the background).
                if bot.get("/readyz")[0] == 200:
                    return bot
            except OSError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"the bot did not get ready: {bot.get('/readyz')}\n{bot.log()}")

    @property
    def webhooks(self) -> WebhookSender:
        """Signed GitHub deliveries to the current bot's /github/webhook."""
        assert self.bot is not None
        return WebhookSender(self.bot.url + "/github/webhook", WEBHOOK_SECRET)

    @property
    def sender(self) -> SlackEventSender:
        """Posts signed events to the current bot; event ids keep counting across restarts."""
        assert self.bot is not None
        url = self.bot.url + "/slack/events"
        if self._sender is None:
            self._sender = SlackEventSender(url, SIGNING_SECRET)
        self._sender.url = url
        return self._sender

    # --- people in Slack ------------------------------------------------------------------

    def mention(self, text: str, *, user: str = ALICE, thread_ts: str | None = None,
                sender: SlackEventSender | None = None) -> SlackMessage:  # fmt: skip
        posted = self.slack.add_message(CHANNEL, f"<@U0BOT> {text}", user=user, thread_ts=thread_ts)
        (sender or self.sender).send(app_mention(channel=CHANNEL, user=user, text=posted.text,
                                                 ts=posted.ts, thread_ts=thread_ts))  # fmt: skip
        return posted

    def reply(self, thread_ts: str, text: str, *, user: str = ALICE) -> SlackMessage:
        posted = self.slack.add_message(CHANNEL, text, user=user, thread_ts=thread_ts)
        self.sender.send(message(channel=CHANNEL, user=user, text=text, ts=posted.ts,
                                 thread_ts=thread_ts))  # fmt: skip
        return posted

    def react(self, ts: str, name: str, *, user: str, channel: str = CHANNEL) -> None:
        self.slack.add_reaction(channel, ts, name, user=user)
        author = self.slack.message(channel, ts).user  # Slack names it as `item_user`
        self.sender.send(reaction_added(channel=channel, ts=ts, reaction=name, user=user,
                                        item_user=author))  # fmt: skip

    def bot_texts(self, thread_ts: str) -> list[str]:
        return [m.text for m in self.slack.bot_messages(CHANNEL, thread_ts)]

    def wait_text(self, thread_ts: str, needle: str, timeout: float = 30) -> SlackMessage:
        def found() -> SlackMessage | None:
            return next(
                (m for m in self.slack.bot_messages(CHANNEL, thread_ts) if needle in _all_text(m)),
                None,
            )

        try:
            return self.slack.wait_for(found, timeout)
        except AssertionError:
            texts = "\n---\n".join(self.bot_texts(thread_ts))
            log = self.bot.log() if self.bot else ""
            raise AssertionError(
                f"no bot message with {needle!r}; thread:\n{texts}\nlog:\n{log[-4000:]}"
            ) from None

    def proposal(self, thread_ts: str, number: int = 1) -> SlackMessage:
        return self.wait_text(thread_ts, f"Proposal {number}")


def _all_text(m: SlackMessage) -> str:
    return m.text + " " + str(m.blocks or "")


def bot_env(
    tmp: Path, *, slack: SlackServer, model: AnthropicModel, github: FakeGitHub,
    origin: Path, redis: RedisServer | None,
) -> dict[str, str]:  # fmt: skip
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "SYSTEMROOT")}
    env = {
        **keep,
        "HOME": str(tmp / "home"),
        "NO_PROXY": "127.0.0.1,localhost",
        "SLACK_BOT_TOKEN": slack.bot_token,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_APP_TOKEN": slack.app_token,
        "TANKA_BOT_SLACK_API_URL": slack.api_url,
        "TANKA_BOT_REPO_URL": str(origin),
        "TANKA_BOT_GITHUB_REPO": "acme/infra",
        "GITHUB_TOKEN": GITHUB_TOKEN,
        "GITHUB_API_URL": github.url,
        "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "TANKA_BOT_WORKDIR": str(tmp / "work"),
        "TANKA_BOT_APPROVERS": BOB,
        "TANKA_BOT_LEASE_TTL": "3",
        # The flows script every model call; tests/e2e/test_review.py turns the reviewer on.
        "TANKA_BOT_REVIEW": "false",
        **model.env(ANTHROPIC_KEY),
    }
    if redis is not None:
        env["REDIS_URL"] = redis.url
    return env


@contextmanager
def stack(
    tmp: Path,
    *,
    redis: bool = False,
    redis_keeps_data: bool = False,
    slack_options: Mapping[str, Any] | None = None,
    project: Callable[[Path], Path] = make_project,
) -> Iterator[Stack]:
    """The fakes, and a bare origin holding `project(dir)` (the scenarios' small Tanka repo)."""
    with ExitStack() as stack_:
        slack = stack_.enter_context(SlackServer(**(slack_options or {})))
        model = AnthropicModel(stack_.enter_context(FakeAnthropic(api_key=ANTHROPIC_KEY)))
        github = stack_.enter_context(FakeGitHub(tokens=(GITHUB_TOKEN,)))
        github.add_repo("acme", "infra")
        source = project(tmp / "project")
        origin = tmp / "origin.git"
        git(tmp, "clone", "--bare", "--quiet", str(source), str(origin))
        (tmp / "redis").mkdir()
        server = (
            stack_.enter_context(RedisServer(tmp / "redis", keep_data=redis_keeps_data))
            if redis
            else None
        )
        (tmp / "home").mkdir()
        s = Stack(
            tmp,
            slack,
            model,
            github,
            origin,
            server,
            bot_env(tmp, slack=slack, model=model, github=github, origin=origin, redis=server),
        )
        try:
            yield s
        finally:
            for bot in s.bots:
                if bot.process.poll() is None:
                    bot.process.kill()
                    bot.process.wait(10)


Check = Callable[[], bool]
