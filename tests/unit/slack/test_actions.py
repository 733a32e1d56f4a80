"""bot.inbound.slack_actions: Slack's interactive payloads as the values the bot already takes
(a click is the matching reaction), and every bad field refused."""

from __future__ import annotations

import json
from typing import Any

from bot.domain.requests import Reaction
from bot.inbound.slack_actions import Ask, NewEnvForm, parse_ask, parse_click, parse_new_env, quote
from bot.inbound.slack_payloads import Ignored
from bot.slack.views import new_env_modal
from fakes.slack_interactions import block_actions, message_action, view_submission

EMOJI = {"approve_emoji": "white_check_mark", "cancel_emoji": "x"}
EXISTING = frozenset({"environments/dev", "environments/prod"})


def click(action_id: str = "tanka_approve", **extra: Any) -> dict[str, Any]:
    body = block_actions(user="U0BOB", channel="C0DEPLOY", message_ts="1700000000.000200",
                         action_id=action_id, action_ts="1700000005.123456")  # fmt: skip
    body.update(extra)
    return body


def test_a_click_is_the_matching_reaction_by_the_clicker_at_the_clicks_time() -> None:
    assert parse_click(click(), **EMOJI) == Reaction(
        "C0DEPLOY", "U0BOB", "white_check_mark", "1700000000.000200", True, 1700000005.123456
    )
    cancel = parse_click(click("tanka_cancel"), **EMOJI)
    assert isinstance(cancel, Reaction)
    assert cancel.name == "x"


def test_clicks_that_are_not_ours_or_lack_a_field_are_ignored() -> None:
    assert isinstance(parse_click(click("someone_else"), **EMOJI), Ignored)
    assert isinstance(parse_click(click(actions=[]), **EMOJI), Ignored)
    assert isinstance(parse_click(click(user={"id": "nobody"}), **EMOJI), Ignored)
    broken = click()
    broken["actions"][0]["action_ts"] = "soon"
    assert isinstance(parse_click(broken, **EMOJI), Ignored)


def submit(**values: dict[str, Any]) -> dict[str, Any]:
    return view_submission(new_env_modal("C0DEPLOY", sorted(EXISTING)), user="U0ALICE",
                           values=values)  # fmt: skip


def test_the_modal_refuses_bad_and_existing_names_with_a_reason() -> None:
    assert "Enter a name" in str(parse_new_env(submit(), EXISTING))
    assert "one word" in str(parse_new_env(submit(name={"value": "two words"}), EXISTING))
    assert "not a usable environment name" in str(
        parse_new_env(submit(name={"value": "UPPER"}), EXISTING)
    )
    assert "already exists" in str(parse_new_env(submit(name={"value": "dev"}), EXISTING))
    lost = submit(name={"value": "staging"})
    lost["view"]["private_metadata"] = "not json"
    assert "run /tanka new-env again" in str(parse_new_env(lost, EXISTING))


def test_a_good_submission_is_the_typed_command_in_the_channel_it_came_from() -> None:
    chosen = {"selected_option": {"value": "environments/dev"}}
    form = parse_new_env(submit(name={"value": "eu/staging"}, copy_from=chosen,
                                instructions={"value": "two replicas"}), EXISTING)  # fmt: skip
    assert isinstance(form, NewEnvForm)
    assert (form.channel, form.user, form.action.name) == ("C0DEPLOY", "U0ALICE", "eu/staging")
    assert form.action.instructions == "Copy the conventions of environments/dev. two replicas"
    assert json.loads(new_env_modal("C0X9", [])["private_metadata"]) == {"channel": "C0X9"}


def test_the_shortcut_names_the_messages_thread_and_quotes_it() -> None:
    quoted = {"ts": "1700000000.000300", "user": "U0MAL", "text": "a\nb"}
    top = message_action(user="U0ALICE", channel="C0DEPLOY", message=quoted)
    reply = message_action(user="U0ALICE", channel="C0DEPLOY", message={
        "ts": "1700000000.000400", "thread_ts": "1700000000.000100", "text": "c"})  # fmt: skip
    assert parse_ask(top) == Ask("C0DEPLOY", "U0ALICE", "1700000000.000300",
                                 "1700000000.000300", "U0MAL", "a\nb")  # fmt: skip
    asked = parse_ask(reply)
    assert isinstance(asked, Ask)
    assert asked.thread_ts == "1700000000.000100"
    assert isinstance(parse_ask({**top, "channel": {}}), Ignored)
    assert quote("a\nb") == "> a\n> b"
    assert quote("x" * 5000).endswith(" …")


def test_the_forms_instructions_are_escaped_as_slack_escapes_a_typed_command() -> None:
    # A form's input comes back as typed; the bot posts the instructions in the channel, where
    # a raw <!channel> would ping everyone in the bot's name (and past the channel's rules).
    form = parse_new_env(submit(name={"value": "qa"}, instructions={
        "value": "<!channel> & <@U0BOSS> say <https://evil.example|ok>"}), EXISTING)  # fmt: skip
    assert isinstance(form, NewEnvForm)
    assert form.action.instructions == (
        "&lt;!channel&gt; &amp; &lt;@U0BOSS&gt; say &lt;https://evil.example|ok&gt;"
    )
    # An environment is a directory of the repository, whose name may hold the same.
    odd = {"selected_option": {"value": "environments/<!here>"}}
    form = parse_new_env(submit(name={"value": "qa"}, copy_from=odd), EXISTING)
    assert isinstance(form, NewEnvForm)
    assert form.action.instructions == "Copy the conventions of environments/&lt;!here&gt;."
