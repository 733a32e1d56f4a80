"""Everything the runner and handlers use, built once by the composition root (bot.app)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.agent.agent import Agent
from bot.config import Settings
from bot.domain.ports import ChatClient
from bot.policy.groups import GroupCache
from bot.publish.pipeline import PullRequestHost
from bot.store.base import Store
from bot.store.guard_store import GuardStore, MemoryGuardStore
from bot.store.sessions import Sessions
from bot.telemetry.audit import Audit
from bot.telemetry.metrics import Metrics
from bot.workspace.workspaces import Workspaces
from tools.context import PullRequestSource
from tools.tanka.diff.revision import RevisionDiffer


@dataclass
class Services:
    settings: Settings
    store: Store
    chat: ChatClient
    workspaces: Workspaces
    agent: Agent
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
        """The store's sessions as `Session` values."""
        return Sessions(self.store)
