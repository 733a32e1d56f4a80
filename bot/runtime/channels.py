"""Teams: each channel's view of the service, from the settings file's `channels`.

A channel listed with its own `repo_url`, `github_repo`, `base_branch` or `approvers` gets a
`Services` whose settings say so, with the workspaces of its repository's cache and a code host
for its GitHub repository; everything else (store, Slack client, agent, metrics) is shared.
Repo caches are one per repository URL, shared by the channels that name the same one. Built
once at start-up, so every repository is cloned and refreshed from the beginning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bot.config import Settings
from bot.services import Services
from bot.workspace.repo_cache import RepoCache
from bot.workspace.workspaces import Workspaces

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
