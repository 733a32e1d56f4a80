"""Who may steer the agent, enforced before a mention, a reply, a cancel or `/tanka` becomes work.

The rules are `bot.policy.rules.Steering`'s; this is where a refusal is answered and audited. A
mention
is refused in its thread (the bot answers every mention); a reply in a session thread is refused
ephemerally, so the thread stays readable; a reply in a thread without a session is people
talking, and is left alone.
"""

from __future__ import annotations

import logging

from bot.domain.ports import ChatError
from bot.domain.requests import Mention, SlashCommand, ThreadReply
from bot.policy.rules import Steering
from bot.services import Services
from bot.store.base import StoreUnavailable

log = logging.getLogger(__name__)


def steering(svc: Services) -> Steering:
    return Steering(svc.settings.teams, svc.groups.members)


def refuse_message(svc: Services, message: Mention | ThreadReply) -> bool:
    """True when the message must not reach the agent (any answer is posted and audited)."""
    gate = steering(svc)
    key = message.key
    mention = isinstance(message, Mention)
    why = gate.channel_refusal(message.channel)
    if why is None:
        refused = gate.user_refusal(message.user)
        if refused is None:
            return False
        why = f"<@{message.user}> {refused}"
    elif not mention:
        return True  # a thread in a channel that is not served: nothing of ours
    if not mention:
        try:
            in_session = svc.sessions.exists(key)
        except StoreUnavailable as exc:
            log.warning("a reply was refused and not answered, the store is down: %s", exc)
            return True
        if not in_session:
            return True
    kind = "mention" if mention else "reply"
    _audit(svc, message.channel, key.thread_ts, message.user, kind, why=why, text=message.text)
    try:
        if mention:
            svc.chat.post(message.channel, why, thread_ts=key.thread_ts)
        else:
            svc.chat.ephemeral(message.channel, message.user,
                               f"Your reply was not passed to the agent: {why}",
                               thread_ts=key.thread_ts)  # fmt: skip
    except ChatError as exc:
        log.warning("could not answer a refused message: %s", exc)
    return True


def refuse_user(svc: Services, channel: str, thread: str, user: str, what: str) -> str | None:
    """Why `user` may not do `what` here (audited), or None when they may."""
    gate = steering(svc)
    why = gate.channel_refusal(channel) or gate.user_refusal(user)
    if why is not None:
        _audit(svc, channel, thread, user, what, why=why)
    return why


def refuse_command(svc: Services, command: SlashCommand) -> str | None:
    """Why `/tanka` may not be used here by this user, or None. Help is always answered where the
    bot serves the channel; every other subcommand needs an allowed user."""
    gate = steering(svc)
    why = gate.channel_refusal(command.channel)
    if why is None and command.text.split(maxsplit=1)[:1] not in ([], ["help"]):
        why = gate.user_refusal(command.user)
    if why is not None:
        _audit(svc, command.channel, "", command.user, "command", why=why, text=command.text)
    return why


def _audit(
    svc: Services, channel: str, thread: str, user: str, kind: str, *, why: str, text: str = ""
) -> None:
    details = {"kind": kind, "why": why} | ({"text": text} if text else {})
    svc.audit.record(channel, thread, user, "refused", details)
