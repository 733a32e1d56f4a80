"""`/tanka new-env`: a new thread in the channel, and a turn on it as if mentioned there."""

from __future__ import annotations

import logging

from bot.domain.commands import NewEnv, new_env_prompt
from bot.domain.ports import ChatError
from bot.domain.requests import SlashCommand
from bot.domain.thread import ThreadKey
from bot.handlers import steer
from bot.runtime.pending import Pending
from bot.runtime.threads import Threads

log = logging.getLogger(__name__)


def new_env(threads: Threads, command: SlashCommand, action: NewEnv) -> None:
    """Run a `/tanka new-env` taken from the work queue (in the consumer's thread)."""
    why = steer.refuse_command(threads.svc, command)
    if why is not None:
        threads.ephemeral(command.channel, command.user, why)
        return
    request = f"/tanka new-env {action.name}" + (
        f" {action.instructions}" if action.instructions else ""
    )
    try:
        ts = threads.svc.chat.post(
            command.channel,
            f"<@{command.user}> asked for a new environment `{action.name}`"
            + (f": {action.instructions}" if action.instructions else ""),
        )
    except ChatError as exc:
        log.warning("new-env: could not post in %s: %s", command.channel, exc)
        note = f"I could not post in this channel ({exc}); invite me with /invite."
        threads.ephemeral(command.channel, command.user, note)
        return
    key = ThreadKey(command.channel, ts)
    pending = Pending(command.user, new_env_prompt(action), request=request)
    threads.guard(key, lambda: threads.enqueue_and_drive(key, pending, new=True))
