"""Bolt listeners for Slack's interactive payloads: the Approve and Cancel buttons, the new-env
modal, the `tanka_ask` message shortcut; and the Home tab (`app_home_opened`). Each is
acknowledged first and parsed into the value the rest of the bot already handles: a click is a
reaction, the modal is `/tanka new-env`, the shortcut is a mention in the message's thread. So
the same checks and answers apply.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from slack_bolt import Ack, App, Respond

from bot.domain.ports import ChatError
from bot.domain.requests import Mention, Reaction, SlashCommand
from bot.handlers import home, steer
from bot.handlers.admin import environment_names
from bot.inbound.slack_actions import (
    Ask,
    NewEnvForm,
    form_channel,
    parse_ask,
    parse_click,
    parse_new_env,
    quote,
)
from bot.inbound.slack_payloads import Ignored
from bot.policy.groups import GroupCache
from bot.runtime.runner import Runner
from bot.runtime.work import NewEnvRequest
from bot.services import Services
from bot.slack.client import SlackChatClient
from bot.slack.interactive import APPROVE_ACTION, CANCEL_ACTION
from bot.slack.views import NAME_BLOCK, NEW_ENV_CALLBACK, new_env_modal
from bot.store.base import StoreUnavailable
from tools.gitrun import GitError

log = logging.getLogger(__name__)

ASK_SHORTCUT = "tanka_ask"


def _click(runner: Runner, svc: Services, click: Reaction) -> None:
    """A button, exactly as its emoji (bot.runtime.reactions): an approval is queued, a cancel
    runs at once, off the ack path, not behind the very turn it stops."""
    if click.name == svc.settings.cancel_emoji:
        # The cancel emoji of someone who may not steer is refused without a word (and
        # audited there); a click deserves to hear why, and only the clicker does.
        gate = steer.steering(svc)
        why = gate.channel_refusal(click.channel) or gate.user_refusal(click.user)
        if why is not None:
            runner.ephemeral(click.channel, click.user, f"Not cancelled: {why}")
        runner.admission.soon(lambda: runner.handle(click))
        return
    runner.enqueue_or_tell(click, click.channel, click.user)


def register(app: App, runner: Runner, svc: Services) -> None:
    s = svc.settings

    def on_click(ack: Ack, body: Mapping[str, Any]) -> None:
        ack()
        svc.metrics.events.labels("block_actions").inc()
        parsed = parse_click(body, approve_emoji=s.approve_emoji, cancel_emoji=s.cancel_emoji)
        if isinstance(parsed, Ignored):
            log.debug("ignored: %s", parsed.reason)
            return
        _click(runner, svc, parsed)

    app.action(APPROVE_ACTION)(on_click)
    app.action(CANCEL_ACTION)(on_click)

    def on_submit(ack: Ack, body: Mapping[str, Any]) -> None:
        svc.metrics.events.labels("view_submission").inc()
        channel = form_channel(body)
        here = (runner.channels(channel) if channel else None) or svc
        why = steer.steering(svc).channel_refusal(channel) if channel else None
        form: NewEnvForm | str = why or parse_new_env(body, _existing(here))
        if isinstance(form, str):  # refused inline, before any work
            ack(response_action="errors", errors={NAME_BLOCK: form[:150]})
            return
        ack()  # closes the modal
        text = f"new-env {form.action.name} {form.action.instructions}".strip()
        command = SlashCommand(form.channel, form.user, "/tanka", text)
        runner.enqueue_or_tell(NewEnvRequest(command, form.action), form.channel, form.user)

    app.view(NEW_ENV_CALLBACK)(on_submit)

    def on_ask(ack: Ack, body: Mapping[str, Any], respond: Respond) -> None:
        ack()
        svc.metrics.events.labels("message_action").inc()
        ask = parse_ask(body)
        if isinstance(ask, Ignored):
            log.debug("ignored: %s", ask.reason)
            return
        why = steer.steering(svc).channel_refusal(ask.channel)
        if why is not None:
            steer.refuse_user(svc, ask.channel, ask.thread_ts, ask.user, "shortcut")  # audited
            # Through the shortcut's response_url: the bot may not be in that channel at all.
            try:
                respond(text=why, response_type="ephemeral", replace_original=False)
            except Exception as exc:
                log.warning("could not answer the shortcut: %s", exc)
                runner.ephemeral(ask.channel, ask.user, why)
            return
        runner.enqueue_or_tell(_mention(ask), ask.channel, ask.user)  # steering applies there

    app.shortcut(ASK_SHORTCUT)(on_ask)
    register_home(app, runner, svc)


def register_home(app: App, runner: Runner, svc: Services) -> None:
    web = SlackChatClient(app.client)
    # Who is in a channel, for the Home tab: one call per channel every 5 minutes at most.
    members = GroupCache(web.channel_members, ttl=300.0)
    workspace: list[str] = []

    def on_home(event: Mapping[str, Any]) -> None:
        svc.metrics.events.labels("app_home_opened").inc()
        user = event.get("user")
        if event.get("tab", "home") != "home" or not isinstance(user, str) or not user:
            return
        try:
            if not workspace:
                workspace.append(web.workspace_url())
            view = home.build(svc, user, channels=runner.channels, members=members.members,
                              workspace_url=workspace[0])  # fmt: skip
            web.publish_home(user, view)
        except (ChatError, StoreUnavailable) as exc:
            log.warning("the Home tab of %s was not published: %s", user, exc)

    app.event("app_home_opened")(on_home)


def open_new_env_form(app: App, svc: Services, command: SlashCommand, trigger_id: str) -> str:
    """Open the new-env modal; what to answer the command with ("" when it opened)."""
    try:
        envs = environment_names(svc)
    except GitError as exc:
        log.info("new-env form without environments to copy: %s", exc)
        envs = []
    try:
        app.client.views_open(trigger_id=trigger_id, view=new_env_modal(command.channel, envs))
    except Exception as exc:  # any failure: say how to go on without the form
        log.warning("views.open failed: %s", exc)
        return (
            "The new-environment form could not be opened; type "
            "`/tanka new-env NAME [instructions]` instead."
        )
    return ""


def _existing(svc: Services) -> frozenset[str]:
    try:
        return frozenset(environment_names(svc))
    except GitError as exc:
        log.info("new-env: the environments could not be listed: %s", exc)
        return frozenset()


def _mention(ask: Ask) -> Mention:
    who = f"<@{ask.author}>" if ask.author.startswith(("U", "W")) else "someone"
    request = (
        f"About this message in the thread (from {who}):\n{quote(ask.text)}\n\n"
        "Look into what it asks or reports and propose a change to the repository if one is "
        "needed."
    )
    # The asked-about message's first line names the session and its pull request.
    headline = next((line.strip() for line in ask.text.splitlines() if line.strip()), "")
    return Mention(ask.channel, ask.user, request, ask.ts, ask.thread_ts, headline)
