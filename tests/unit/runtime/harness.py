"""The Slack service's runner in process, with every outside party injected as a local fake.

What `tanka-bot serve` composes (bot.app), minus Bolt and HTTP: a `Runner` over `Services` built
from real settings, a recording chat client (fakes.chat) in place of Slack, the scripted model
provider (fakes.scripted_provider), a memory or real Redis store, a repository cache over a local
bare origin (real git) and the PR code host against the fake GitHub (fakes.github_server). Tests
hand the runner the domain values the listeners would (`Mention`, `Reaction`) and read what the
bot posted, so a handler's behaviour is checked in seconds rather than through a process.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bot.agent.agent import Agent
from bot.agent.prompts import system_prompt
from bot.compose import budgets_from_settings, build_code_host
from bot.config import load_settings
from bot.domain.requests import Mention, Reaction, ThreadReply
from bot.domain.thread import ThreadKey
from bot.policy.groups import GroupCache
from bot.runtime.dispatch import Dispatcher
from bot.runtime.runner import Runner
from bot.services import Services
from bot.store.base import Store
from bot.telemetry.metrics import Metrics
from bot.workspace.repo_cache import RepoCache
from bot.workspace.workspaces import Workspaces
from fakes.chat import RecordingChat
from fakes.github_server import FakeGitHub
from fakes.scripted_provider import ScriptedProvider, call, reply, tools
from tests.scenarios.project import git, make_project
from tools.catalog import default_registry
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.revision import RevisionDiffer

CHANNEL = "C0DEPLOY"
ALICE = "U0ALICE"  # the requester
BOB = "U0BOB"  # the approver
MALLORY = "U0MALLORY"  # neither allowed to steer nor to approve
GITHUB_TOKEN = "ghp_" + "InProcessDummyToken0123456789ab"
DEV = "environments/dev/main.jsonnet"
SETTLE = 60.0  # seconds `settle` waits for the pool to run dry before it fails the test


@dataclass
class Rig:
    """A runner with its fakes; `mention`/`reply`/`react` are what the Slack listeners hand it."""

    runner: Runner
    svc: Services
    chat: RecordingChat
    model: ScriptedProvider
    github: FakeGitHub
    origin: Path
    dispatcher: Dispatcher
    _ts: Iterator[int] = field(default_factory=lambda: itertools.count(100))

    def _next_ts(self) -> str:
        return f"1700000000.{next(self._ts):06d}"

    def mention(self, text: str, *, user: str = ALICE, ts: str | None = None) -> ThreadKey:
        """A new thread (at `ts`): `@tanka-bot text` by `user`; returns the thread's key."""
        message = Mention(CHANNEL, user, text, ts or self._next_ts(), None)
        self.runner.handle(message)
        return message.key

    def reply(self, key: ThreadKey, text: str, *, user: str = ALICE) -> None:
        self.runner.handle(ThreadReply(CHANNEL, user, text, self._next_ts(), key.thread_ts))

    def react(self, ts: str, *, user: str, name: str = "white_check_mark") -> None:
        self.runner.handle(Reaction(CHANNEL, user, name, ts, True, time.time()))

    def settle(self) -> None:
        """Wait until every submitted job has finished (the pool runs them on its threads)."""
        deadline = time.monotonic() + SETTLE
        while self.dispatcher.busy:
            if time.monotonic() > deadline:
                raise AssertionError(f"jobs still running after {SETTLE}s: {self.texts()}")
            time.sleep(0.01)

    def texts(self, key: ThreadKey | None = None) -> list[str]:
        """Everything posted (in `key`'s thread), each message's text and blocks as one string."""
        return [
            f"{args['text']} {args['blocks'] or ''}"
            for method, args in list(self.chat.calls)
            if method == "post" and (key is None or args["thread_ts"] == key.thread_ts)
        ]

    def said(self, key: ThreadKey, needle: str) -> bool:
        return any(needle in text for text in self.texts(key))

    def proposal_ts(self, key: ThreadKey, number: int = 1) -> str:
        session = self.svc.sessions.get(key)
        assert session is not None, f"no session in {key.id}: {self.texts(key)}"
        assert len(session.proposals) >= number, f"no proposal {number}: {self.texts(key)}"
        return session.proposals[number - 1].ts


def scale_dev(model: ScriptedProvider, replicas: int = 3) -> None:
    """Script a turn that edits dev's replicas and answers."""
    edit = call("file_edit", path=DEV, old_text="replicas=1", new_text=f"replicas={replicas}")
    model.add(tools(edit, text="Scaling grafana in dev."),
              reply(f"Set grafana's replicas in dev to {replicas}."))  # fmt: skip


@contextmanager
def rig(tmp: Path, store: Store, *, env: Mapping[str, str] | None = None) -> Iterator[Rig]:
    """A runner over `store` (closed on exit), the scenarios' small Tanka repo as the origin."""
    with ExitStack() as stack:
        github = stack.enter_context(FakeGitHub(tokens=(GITHUB_TOKEN,)))
        github.add_repo("acme", "infra")
        origin = tmp / "origin.git"
        git(tmp, "clone", "--bare", "--quiet", str(make_project(tmp / "project")), str(origin))
        teams: dict[str, Any] = {"allowed_users": [ALICE, BOB]}
        (tmp / "teams.yaml").write_text(yaml.safe_dump(teams))
        settings = load_settings({
            "TANKA_BOT_CONFIG": str(tmp / "teams.yaml"),
            "TANKA_BOT_REPO_URL": str(origin),
            "TANKA_BOT_GITHUB_REPO": "acme/infra",
            "GITHUB_TOKEN": GITHUB_TOKEN,
            "GITHUB_API_URL": github.url,
            "TANKA_BOT_WORKDIR": str(tmp / "work"),
            "TANKA_BOT_APPROVERS": BOB,
            "TANKA_BOT_REVIEW": "false",  # every model call is scripted
            **(env or {}),
        })  # fmt: skip
        cache = RepoCache(settings.workdir, str(origin))
        cache.ensure()
        model = ScriptedProvider()
        chat = RecordingChat()
        svc = Services(
            settings=settings,
            store=store,
            chat=chat,
            workspaces=Workspaces(
                cache, store, base_branch=settings.base_branch, ttl=settings.session_ttl
            ),
            agent=Agent(
                model,
                default_registry(),
                system_prompt=system_prompt(),
                budgets=budgets_from_settings(settings),
            ),
            differ=RevisionDiffer(trees=BaseTrees(settings.workdir / "base-trees")),
            metrics=Metrics(),
            groups=GroupCache(chat.group_members),
            code_host=lambda: build_code_host(settings, write_interval=None),
            bot_user_id="U0BOT",
        )
        dispatcher = Dispatcher(2, 8)
        stack.callback(store.close)
        stack.callback(dispatcher.shutdown, SETTLE)
        yield Rig(Runner(svc, dispatcher), svc, chat, model, github, origin, dispatcher)
