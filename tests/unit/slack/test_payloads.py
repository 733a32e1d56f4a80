"""bot.inbound.slack_payloads on the payload shapes Slack really sends (reference/slack.md
2.5-3.x)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.domain.requests import Mention, Reaction, SlashCommand, ThreadReply
from bot.domain.thread import ThreadKey
from bot.inbound.slack_payloads import (
    Ignored,
    message_dedupe_key,
    parse_command,
    parse_event,
    strip_mentions,
)

BOT = "U0BOTUSER1"
BOT_ID = "B0BOTID01"
CHANNEL = "C0LAN2Q65"
HUMAN = "U061F7AUR"
ROOT_TS = "1700000000.000100"
REPLY_TS = "1700000100.000200"


def _rich_text(text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "rich_text",
            "block_id": "Xy1",
            "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}
            ],
        }
    ]


def app_mention(text: str, *, ts: str, thread_ts: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "client_msg_id": "a2b3c4d5-0000-4000-8000-000000000001",
        "type": "app_mention",
        "text": text,
        "user": HUMAN,
        "ts": ts,
        "blocks": _rich_text(text),
        "team": "T0TEAM001",
        "channel": CHANNEL,
        "event_ts": ts,
    }
    if thread_ts is not None:
        event["thread_ts"] = thread_ts
    return event


def message(
    text: str, *, ts: str, thread_ts: str | None = None, user: str = HUMAN
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "client_msg_id": "a2b3c4d5-0000-4000-8000-000000000002",
        "type": "message",
        "text": text,
        "user": user,
        "ts": ts,
        "blocks": _rich_text(text),
        "team": "T0TEAM001",
        "channel": CHANNEL,
        "event_ts": ts,
        "channel_type": "channel",
    }
    if thread_ts is not None:
        event["thread_ts"] = thread_ts
        event["parent_user_id"] = HUMAN
    return event


def parse(event: dict[str, Any]) -> object:
    return parse_event(event, bot_user_id=BOT, bot_id=BOT_ID)


# mentions


def test_app_mention_at_top_level_starts_a_session_keyed_by_its_own_ts() -> None:
    parsed = parse(app_mention(f"<@{BOT}> set prod replicas to 5", ts=ROOT_TS))
    assert parsed == Mention(CHANNEL, HUMAN, "set prod replicas to 5", ROOT_TS, None)
    assert isinstance(parsed, Mention)
    assert parsed.key == ThreadKey(CHANNEL, ROOT_TS)


def test_app_mention_in_a_thread_is_keyed_by_the_thread() -> None:
    parsed = parse(app_mention(f"<@{BOT}> and staging too", ts=REPLY_TS, thread_ts=ROOT_TS))
    assert isinstance(parsed, Mention)
    assert parsed.thread_ts == ROOT_TS
    assert parsed.key == ThreadKey(CHANNEL, ROOT_TS)
    assert parsed.text == "and staging too"


def test_mention_with_a_display_name_is_stripped() -> None:
    parsed = parse(app_mention(f"hey <@{BOT}|tanka-bot>   please   help", ts=ROOT_TS))
    assert isinstance(parsed, Mention)
    assert parsed.text == "hey please help"


def test_other_users_mentions_are_kept_in_the_request() -> None:
    parsed = parse(app_mention(f"<@{BOT}> ask <@U0OTHER01> first", ts=ROOT_TS))
    assert isinstance(parsed, Mention)
    assert parsed.text == "ask <@U0OTHER01> first"


def test_multi_line_request_keeps_its_lines() -> None:
    parsed = parse(app_mention(f"<@{BOT}> do this:\n- a\n- b", ts=ROOT_TS))
    assert isinstance(parsed, Mention)
    assert parsed.text == "do this:\n- a\n- b"


def test_top_level_message_with_a_mention_is_the_same_mention_as_its_app_mention_twin() -> None:
    text = f"<@{BOT}> bump the app image"
    from_mention = parse(app_mention(text, ts=ROOT_TS))
    from_message = parse(message(text, ts=ROOT_TS))
    assert isinstance(from_mention, Mention)
    assert from_mention == from_message
    assert message_dedupe_key(from_mention) == f"msg:{CHANNEL}:{ROOT_TS}"
    assert isinstance(from_message, Mention)
    assert message_dedupe_key(from_message) == message_dedupe_key(from_mention)


def test_thread_reply_mentioning_the_bot_parses_the_same_from_both_twins() -> None:
    text = f"<@{BOT}> now do dev"
    twins = [
        parse(app_mention(text, ts=REPLY_TS, thread_ts=ROOT_TS)),
        parse(message(text, ts=REPLY_TS, thread_ts=ROOT_TS)),
    ]
    assert twins[0] == twins[1] == Mention(CHANNEL, HUMAN, "now do dev", REPLY_TS, ROOT_TS)


def test_top_level_message_without_a_mention_is_ignored() -> None:
    parsed = parse(message("lunch anyone?", ts=ROOT_TS))
    assert isinstance(parsed, Ignored)
    assert "does not mention" in parsed.reason


def test_top_level_message_mentioning_someone_else_is_ignored() -> None:
    assert isinstance(parse(message("<@U0OTHER01> hi", ts=ROOT_TS)), Ignored)


def test_message_mention_needs_the_bot_user_id() -> None:
    # Without knowing its own id the bot cannot tell a mention in a `message`; the app_mention
    # twin still carries it.
    event = message(f"<@{BOT}> hi", ts=ROOT_TS)
    assert isinstance(parse_event(event, bot_user_id=""), Ignored)
    assert isinstance(parse_event(app_mention(f"<@{BOT}> hi", ts=ROOT_TS), bot_user_id=""), Mention)


# thread replies


def test_message_in_a_thread_is_a_thread_reply() -> None:
    parsed = parse(message("  make it 5 instead  ", ts=REPLY_TS, thread_ts=ROOT_TS))
    assert parsed == ThreadReply(CHANNEL, HUMAN, "make it 5 instead", REPLY_TS, ROOT_TS)
    assert isinstance(parsed, ThreadReply)
    assert parsed.key == ThreadKey(CHANNEL, ROOT_TS)
    assert message_dedupe_key(parsed) == f"msg:{CHANNEL}:{REPLY_TS}"


def test_thread_root_itself_is_not_a_reply() -> None:
    assert isinstance(parse(message("root", ts=ROOT_TS, thread_ts=ROOT_TS)), Ignored)


def test_private_channel_and_dm_ids_are_accepted() -> None:
    for channel in ("G0PRIVATE1", "D0DIRECT01"):
        event = message("hello", ts=REPLY_TS, thread_ts=ROOT_TS) | {"channel": channel}
        parsed = parse(event)
        assert isinstance(parsed, ThreadReply)
        assert parsed.channel == channel


# what is ignored


def test_message_from_another_bot_is_ignored() -> None:
    # Since 2021 most bot messages carry bot_id and no subtype (reference 2.6).
    event = message("deploy finished", ts=REPLY_TS, thread_ts=ROOT_TS, user="U0OTHERBOT")
    event |= {
        "bot_id": "B0OTHER01",
        "app_id": "A0OTHER01",
        "bot_profile": {"id": "B0OTHER01", "name": "ci"},
    }
    parsed = parse(event)
    assert isinstance(parsed, Ignored)
    assert "bot" in parsed.reason


def test_bot_mentioning_us_is_ignored() -> None:
    event = message(f"<@{BOT}> hi", ts=ROOT_TS, user="U0OTHERBOT") | {"bot_id": "B0OTHER01"}
    assert isinstance(parse(event), Ignored)


def test_legacy_bot_message_subtype_is_ignored() -> None:
    event = {
        "type": "message",
        "subtype": "bot_message",
        "text": "hi",
        "ts": REPLY_TS,
        "thread_ts": ROOT_TS,
        "channel": CHANNEL,
        "bot_id": "B0OTHER01",
        "username": "legacy",
    }
    assert isinstance(parse(event), Ignored)


def test_the_bots_own_message_is_ignored() -> None:
    assert isinstance(parse(message("my own", ts=REPLY_TS, thread_ts=ROOT_TS, user=BOT)), Ignored)


def test_message_changed_is_ignored() -> None:
    edited = message(f"<@{BOT}> edited request", ts=REPLY_TS, thread_ts=ROOT_TS)
    event = {
        "type": "message",
        "subtype": "message_changed",
        "message": edited | {"edited": {"user": HUMAN, "ts": "1700000200.000300"}},
        "previous_message": message(f"<@{BOT}> request", ts=REPLY_TS, thread_ts=ROOT_TS),
        "channel": CHANNEL,
        "hidden": True,
        "ts": "1700000200.000300",
        "event_ts": "1700000200.000300",
        "channel_type": "channel",
    }
    parsed = parse(event)
    assert isinstance(parsed, Ignored)
    assert "message_changed" in parsed.reason


@pytest.mark.parametrize("subtype", ["message_deleted", "channel_join", "thread_broadcast"])
def test_other_subtypes_are_ignored(subtype: str) -> None:
    event = message("x", ts=REPLY_TS, thread_ts=ROOT_TS) | {"subtype": subtype}
    assert isinstance(parse(event), Ignored)


@pytest.mark.parametrize(
    "change",
    [
        {"channel": ""},
        {"channel": "not-a-channel"},
        {"user": None},
        {"user": "someone"},
        {"ts": "yesterday"},
        {"ts": 1700000100.0002},
        {"thread_ts": "not-a-ts"},
        {"text": None},
    ],
)
def test_malformed_messages_do_not_become_replies(change: dict[str, Any]) -> None:
    event = message("hello", ts=REPLY_TS, thread_ts=ROOT_TS) | change
    parsed = parse(event)
    if change == {"text": None}:
        # A reply with no text is still a reply (e.g. a file share caption removed): empty text.
        assert parsed == ThreadReply(CHANNEL, HUMAN, "", REPLY_TS, ROOT_TS)
    else:
        assert isinstance(parsed, Ignored)


@pytest.mark.parametrize("missing", ["channel", "user", "ts"])
def test_messages_missing_a_field_are_ignored(missing: str) -> None:
    event = app_mention(f"<@{BOT}> hi", ts=ROOT_TS)
    del event[missing]
    assert isinstance(parse(event), Ignored)


@pytest.mark.parametrize("event", [{}, {"type": None}, {"type": "channel_created"}])
def test_unknown_events_are_ignored(event: dict[str, Any]) -> None:
    assert isinstance(parse(event), Ignored)


# reactions


def reaction(name: str, *, item: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "reaction_added",
        "user": "U024BE7LH",
        "reaction": name,
        "item_user": BOT,
        "item": item
        if item is not None
        else {"type": "message", "channel": CHANNEL, "ts": REPLY_TS},
        "event_ts": "1700000300.000400",
    }


def test_reaction_added() -> None:
    assert parse(reaction("white_check_mark")) == Reaction(
        CHANNEL,
        "U024BE7LH",
        "white_check_mark",
        REPLY_TS,
        added=True,
        at=1700000300.0004,
        item_user=BOT,
    )


def test_reaction_removed() -> None:
    parsed = parse(reaction("x") | {"type": "reaction_removed"})
    assert parsed == Reaction(
        CHANNEL, "U024BE7LH", "x", REPLY_TS, added=False, at=1700000300.0004, item_user=BOT
    )


@pytest.mark.parametrize("event_ts", [None, "", "soon"])
def test_a_reaction_without_its_event_time_is_ignored(event_ts: str | None) -> None:
    """The time orders a person's add and removal, which Slack may deliver in either order."""
    event = reaction("white_check_mark") | {"event_ts": event_ts}
    assert parse(event) == Ignored("reaction without a valid event_ts")


def test_reaction_skin_tone_suffix_is_stripped() -> None:
    parsed = parse(reaction("thumbsup::skin-tone-2"))
    assert isinstance(parsed, Reaction)
    assert parsed.name == "thumbsup"


def test_reaction_on_a_file_is_ignored() -> None:
    parsed = parse(reaction("white_check_mark", item={"type": "file", "file": "F0HS27V1Z"}))
    assert isinstance(parsed, Ignored)


@pytest.mark.parametrize(
    "change",
    [{"item": None}, {"item": "C0LAN2Q65"}, {"user": ""}, {"reaction": ""}, {"reaction": 3}],
)
def test_malformed_reactions_are_ignored(change: dict[str, Any]) -> None:
    assert isinstance(parse(reaction("x") | change), Ignored)


def test_reaction_item_without_ts_is_ignored() -> None:
    assert isinstance(parse(reaction("x", item={"type": "message", "channel": CHANNEL})), Ignored)


def test_reaction_is_not_a_message_for_dedupe() -> None:
    parsed = parse(reaction("x"))
    assert isinstance(parsed, Reaction)
    assert message_dedupe_key(parsed) is None


# slash commands


def slash_body(text: str, **change: str) -> dict[str, str]:
    body = {
        "token": "gIkuvaNzQIHg97ATvDxqgjtO",
        "team_id": "T0TEAM001",
        "team_domain": "example",
        "enterprise_id": "E0ENTERP1",
        "enterprise_name": "Example Corp",
        "channel_id": "C0DEPLOY1",
        "channel_name": "deploys",
        "user_id": HUMAN,
        "user_name": "steve",
        "command": "/tanka",
        "text": text,
        "api_app_id": "A0APPID01",
        "is_enterprise_install": "false",
        "response_url": "https://hooks.slack.com/commands/1234/5678",
        "trigger_id": "13345224609.738474920.8088930838d88f008e0",
    }
    body.update(change)
    return body


def test_slash_command_body() -> None:
    parsed = parse_command(slash_body("  new-env staging  with three replicas "))
    assert parsed == SlashCommand(
        "C0DEPLOY1", HUMAN, "/tanka", "new-env staging  with three replicas"
    )


def test_slash_command_with_empty_text() -> None:
    parsed = parse_command(slash_body(""))
    assert isinstance(parsed, SlashCommand)
    assert parsed.text == ""


@pytest.mark.parametrize(
    "change", [{"channel_id": ""}, {"user_id": ""}, {"channel_id": "deploys"}, {"user_id": "x"}]
)
def test_slash_command_without_valid_ids_is_ignored(change: dict[str, str]) -> None:
    assert isinstance(parse_command(slash_body("help", **change)), Ignored)


def test_slash_command_missing_text_field() -> None:
    body = slash_body("help")
    del body["text"]
    parsed = parse_command(body)
    assert isinstance(parsed, SlashCommand)
    assert parsed.text == ""


def test_strip_mentions_without_a_bot_id_keeps_the_text() -> None:
    assert strip_mentions("  <@U1> hi  ", "") == "<@U1> hi"


# never raises

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_fields = st.sampled_from(
    [
        "type",
        "subtype",
        "user",
        "text",
        "ts",
        "thread_ts",
        "channel",
        "bot_id",
        "bot_profile",
        "item",
        "reaction",
        "message",
        "hidden",
    ]
)
_field_values = (
    _json
    | st.sampled_from(["app_mention", "message", "reaction_added", "reaction_removed"])
    | st.sampled_from([CHANNEL, HUMAN, BOT, ROOT_TS, REPLY_TS, f"<@{BOT}> hi"])
    | st.fixed_dictionaries(
        {"type": st.sampled_from(["message", "file"]), "channel": _json, "ts": _json}
    )
)


@settings(max_examples=400, deadline=None)
@given(
    event=st.dictionaries(_fields | st.text(max_size=8), _field_values, max_size=8),
    bot_user_id=st.sampled_from([BOT, "", "U0(((", "W0ENTERPR"]) | st.text(max_size=12),
)
def test_parse_event_never_raises(event: dict[str, Any], bot_user_id: str) -> None:
    parsed = parse_event(event, bot_user_id=bot_user_id)
    assert isinstance(parsed, Mention | ThreadReply | Reaction | Ignored)


@settings(max_examples=200, deadline=None)
@given(body=st.dictionaries(st.text(max_size=12), _json, max_size=8))
def test_parse_command_never_raises(body: dict[str, Any]) -> None:
    assert isinstance(parse_command(body), SlashCommand | Ignored)
