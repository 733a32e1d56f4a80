"""Bolt listeners: validate, parse into a domain value, deduplicate, hand off. Nothing slow.

Bolt acknowledges events before calling these; slash commands are acknowledged first thing.
Deduplication marks an event seen only once it is accepted, so when one twin of a mention
(`app_mention` / `message`) is filtered out the other one still counts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from slack_bolt import Ack, App

from bot.domain.commands import Envs, GuardAction, Help, NewEnv, SlashAction, Status, parse_slash
from bot.domain.requests import Mention, SlashCommand, ThreadReply
from bot.handlers import guard_commands, steer
from bot.handlers.admin import environments_message, help_message, status_message
from bot.inbound.slack_interactive import open_new_env_form
from bot.inbound.slack_payloads import Ignored, message_dedupe_key, parse_command, parse_event
from bot.runtime.runner import Runner
from bot.services import Services
from bot.store.base import StoreUnavailable

log = logging.getLogger(__name__)

DEDUPE_TTL = 3600.0  # Slack's retries end within minutes of the first delivery


# The events the app subscribes to (slack-app-manifest.yaml), each taken by `on_event`.
EVENT_TYPES = frozenset({"app_mention", "message", "reaction_added", "reaction_removed"})

# The listener for one event: the envelope (`body`) and its `event` object.
OnEvent = Callable[[Mapping[str, Any], Mapping[str, Any]], None]


def register(app: App, runner: Runner, svc: Services, *, bot_id: str = "") -> OnEvent:
    """Register the listeners on `app`; the event listener is returned, for the HTTP edge to
    call directly (bot.inbound.slack_envelope: events skip Bolt's dispatch there)."""

    def on_event(body: Mapping[str, Any], event: Mapping[str, Any]) -> None:
        # Runs before the ack (process_before_response, or the envelope gate's fast path):
        # triage and the work queue are quick, and a request is durable before Slack hears
        # "got it" (bot.runtime.edge).
        svc.metrics.events.labels(str(event.get("type", "unknown"))).inc()
        if event.get("user") == svc.bot_user_id:  # as Bolt ignores the app's own events
            return
        parsed = parse_event(event, bot_user_id=svc.bot_user_id, bot_id=bot_id)
        if isinstance(parsed, Ignored):
            _ignored(svc, event, parsed)
            return
        try:
            runner.receive(parsed, lambda: _first_time(svc, body, parsed))
        except Exception:  # a bug here must not turn Slack's delivery into a 5xx it retries
            svc.metrics.errors.labels("internal").inc()
            log.exception("could not take a %s event", event.get("type"))

    # Each subscribed event has a listener: Bolt answers 404 to an unhandled one, and Slack
    # retries it. (reaction_removed withdraws an approval.)
    for kind in sorted(EVENT_TYPES):
        app.event(kind)(on_event)

    def on_command(ack: Ack, body: Mapping[str, Any]) -> None:
        command = parse_command(body)
        if isinstance(command, Ignored):
            ack(text="This command could not be read; try again.")
            return
        action = parse_slash(command.text)
        not_set_up = steer.steering(svc).channel_refusal(command.channel)
        if not_set_up is not None:  # teams: a channel the settings file does not list
            ack(text=not_set_up)
            steer.refuse_command(svc, command)  # audited
            return
        here = runner.channels(command.channel) or svc
        if isinstance(action, Help) and command.text.lower() == "new-env":  # no name: the form
            why = steer.refuse_command(svc, command)
            trigger = body.get("trigger_id")
            if why is None and isinstance(trigger, str) and trigger:
                why = open_new_env_form(app, here, command, trigger) or None
            elif why is None:  # no trigger_id to open the form with: say how to type it
                why = help_message(svc, action.problem)
            ack(text=why) if why else ack()
        elif isinstance(action, Help):
            ack(text=help_message(svc, action.problem))
        elif isinstance(action, NewEnv):  # queued (durable) before the ack, which says so
            not_queued = runner.enqueue_new_env(command, action)
            ack(text=not_queued or f"Starting a session to create environment `{action.name}`…")
        else:
            ack()
            runner.admission.soon(lambda: _answer_later(
                runner, command.channel, command.user,
                lambda: steer.refuse_command(svc, command)
                or _quick(here, command, action)))  # fmt: skip
        _ = Status  # every action is handled above

    app.command("/tanka")(on_command)
    return on_event


def _quick(svc: Services, command: SlashCommand, action: SlashAction) -> str:
    """The answer to a command that needs no agent: envs, status, and the guard commands."""
    if isinstance(action, Envs):
        return environments_message(svc)
    if isinstance(action, Status):
        return status_message(svc, command.channel) + guard_commands.status_text(
            svc, command.channel
        )
    if isinstance(action, GuardAction):
        return guard_commands.answer(svc, command, action)
    return help_message(svc)


def _ignored(svc: Services, event: Mapping[str, Any], ignored: Ignored) -> None:
    """Count an event that is no request; a mention among them is logged at info, so an operator
    can see why the bot stayed silent."""
    reason = ignored.reason
    kind = ("bot_message" if "bot" in reason and "mention" not in reason
            else "message_subtype" if "subtype" in reason
            else "not_a_mention" if "does not mention" in reason
            else "unhandled_event" if "not handled" in reason
            else "unreadable")  # fmt: skip
    svc.metrics.dropped.labels(kind).inc()
    text = event.get("text")
    mentioned = event.get("type") == "app_mention" or (
        isinstance(text, str) and bool(svc.bot_user_id) and f"<@{svc.bot_user_id}" in text
    )
    if mentioned:
        log.info("mention ignored: %s", reason)
    else:
        log.debug("ignored: %s", reason)


def _first_time(svc: Services, body: Mapping[str, Any], parsed: object) -> bool:
    """Whether this delivery is new: by Slack's event id, and for a message also by its channel
    and ts (a mention arrives twice, as `app_mention` and `message`); one store round trip."""
    tokens = []
    event_id = body.get("event_id")
    if isinstance(event_id, str) and event_id:
        tokens.append(f"event:{event_id}")
    if isinstance(parsed, Mention | ThreadReply):
        key = message_dedupe_key(parsed)
        if key is not None:
            tokens.append(key)
    return not tokens or svc.store.first_seen_all(tokens, DEDUPE_TTL)


def _answer_later(runner: Runner, channel: str, user: str, make: Callable[[], str]) -> None:
    try:
        text = make()
    except StoreUnavailable as exc:
        text = f"The session store is unavailable ({exc}); try again in a minute."
    runner.ephemeral(channel, user, text)
