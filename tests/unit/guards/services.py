"""Services for the guardrails' unit tests: settings, an in-memory store and a recording chat;
no checkout, agent or differ (the guards under test never reach them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from bot.config import Settings
from bot.policy.groups import GroupCache
from bot.services import Services
from bot.store.guard_store import GuardStore
from bot.store.memory import MemoryStore
from bot.telemetry.metrics import Metrics
from bot.workspace.workspaces import Workspaces
from fakes.chat import RecordingChat
from tools.tanka.diff.revision import RevisionDiffer


def guard_services(
    settings: Settings, guards: GuardStore, code_host: Callable[[], Any] = lambda: None
) -> Services:
    chat = RecordingChat()
    return Services(
        settings=settings,
        store=MemoryStore(),
        chat=chat,
        workspaces=cast(Workspaces, None),
        agent=None,
        differ=cast(RevisionDiffer, None),
        metrics=Metrics(),
        groups=GroupCache(chat.group_members),
        code_host=code_host,
        guards=guards,
    )
