"""Services for unit tests of the parts that never reach a checkout, the agent or the differ
(triage, the reaper, turn slots, approvals, alert sessions, the guardrails): settings, a store
and a recording chat, with the rest as the serving process leaves it (no agent) or unset."""

from __future__ import annotations

from typing import Any, cast

from bot.config import Settings
from bot.policy.groups import GroupCache
from bot.services import Services
from bot.store import Store
from bot.store.memory import MemoryStore
from bot.telemetry.metrics import Metrics
from bot.workspace.workspaces import Workspaces
from fakes.chat import RecordingChat
from tools.tanka.diff.revision import RevisionDiffer


def bare_services(
    settings: Settings,
    *,
    store: Store | None = None,
    chat: RecordingChat | None = None,
    workspaces: object = None,
    metrics: Metrics | None = None,
    **fields: Any,
) -> Services:
    """`fields`: any other Services field (code_host, replica, clock, guards, bot_user_id)."""
    chat = chat if chat is not None else RecordingChat()
    fields.setdefault("code_host", lambda: None)
    return Services(
        settings=settings,
        store=store if store is not None else MemoryStore(),
        chat=chat,
        workspaces=cast(Workspaces, workspaces),
        agent=None,
        differ=cast(RevisionDiffer, None),
        metrics=metrics if metrics is not None else Metrics(),
        groups=GroupCache(chat.group_members),
        **fields,
    )
