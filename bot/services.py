"""Everything the runner and handlers use, built once by the composition root (bot.app), and
each channel's view of it (Channels).

Channels come from the settings file's `channels`: a channel listed with its own `repo_url`,
`github_repo`, `base_branch` or `approvers` gets a `Services` whose settings say so, with the
workspaces of its repository's cache and a code host for its GitHub repository; everything else
(store, Slack client, agent, metrics) is shared. Repo caches are one per repository URL, shared
by the channels that name the same one. Built once at start-up, so every repository is cloned
and refreshed from the beginning.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from bot.config import Settings
from bot.domain.ports import ChatClient
from bot.policy.groups import GroupCache
from bot.publish.pipeline import PullRequestHost
from bot.store.base import Store
from bot.store.guard_store import GuardStore, MemoryGuardStore
from bot.store.sessions import Sessions
from bot.telemetry.audit import Audit
from bot.telemetry.metrics import Metrics
from bot.workspace.repo_cache import RepoCache
from bot.workspace.workspaces import Workspaces
from tools.context import PullRequestSource
from tools.tanka.diff.revision import RevisionDiffer

if TYPE_CHECKING:
    from bot.agent.agent import Agent


@dataclass
class Services:
    settings: Settings
    store: Store
    chat: ChatClient
    workspaces: Workspaces
    agent: Agent | None  # None in the serving process of a split bot: bot.work_process runs turns
    differ: RevisionDiffer
    metrics: Metrics
    groups: GroupCache
    code_host: Callable[[], PullRequestHost | None]  # None: no GitHub credentials
    pull_requests: PullRequestSource | None = None
    bot_user_id: str = ""
    replica: str = "replica"
    lock_ttl: float = 60.0  # a turn's lease; renewed while it runs, expires after a crash
    clock: Callable[[], float] = field(default=time.time)
    audit: Audit = field(default_factory=lambda: Audit(None))  # None: no log (unit tests)
    # Freezes, waivers, holds, spend (bot.guards); bot.app builds it beside `store`.
    guards: GuardStore = field(default_factory=MemoryGuardStore)

    @property
    def sessions(self) -> Sessions:
        """The store's sessions as `Session` values (each save filed in the history too)."""
        return Sessions(self.store, on_put=self.audit.session_saved)


CacheFactory = Callable[[str], RepoCache]
CodeHostFactory = Callable[[Settings], Callable[[], Any]]


class Channels:
    def __init__(
        self, svc: Services, *, make_cache: CacheFactory, code_host: CodeHostFactory
    ) -> None:
        self.base = svc
        settings = svc.settings
        self._caches: dict[str, RepoCache] = {}
        self._views: dict[str, Services] = {}
        if settings.repo_url:
            self._caches[settings.repo_url] = svc.workspaces.cache
        for channel in settings.teams.channels or {}:
            own = settings.channel_settings(channel)
            if own is None or own is settings:
                continue
            url = own.repo_url or ""
            cache = self._caches.get(url) or self._caches.setdefault(url, make_cache(url))
            workspaces = Workspaces(
                cache, svc.store, base_branch=own.base_branch, ttl=own.session_ttl
            )
            self._views[channel] = replace(
                svc, settings=own, workspaces=workspaces, code_host=code_host(own)
            )

    def __call__(self, channel: str) -> Services | None:
        """The channel's services; None when the settings file lists channels, not this one."""
        view = self._views.get(channel)
        if view is not None:
            return view
        return None if self.base.settings.teams.channel(channel) is None else self.base

    def caches(self) -> list[tuple[RepoCache, str]]:
        """Every repository's cache with a base branch to keep spare checkouts of."""
        branches: dict[str, str] = {}
        for view in (self.base, *self._views.values()):
            if view.settings.repo_url:
                branches.setdefault(view.settings.repo_url, view.settings.base_branch)
        return [(self._caches[url], branch) for url, branch in branches.items()]
