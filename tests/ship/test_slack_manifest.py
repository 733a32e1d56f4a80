"""slack-app-manifest.yaml against what the bot needs: the behaviour the README promises, and the
Slack listeners and Web API calls in bot/ (scanned from source), so the two cannot drift."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from bot.inbound.slack_listeners import EVENT_TYPES
from tests.ship.paths import MANIFEST, ROOT, SOCKET_MANIFEST

# The README's Slack behaviour, and the events and scopes it cannot work without.
CONTRACT_EVENTS = {"app_mention", "message.channels", "message.groups", "reaction_added"}
CONTRACT_SCOPES = {
    "commands": "the /tanka command",
    "chat:write": "answers, proposals and progress in threads",
    "files:write": "long diffs posted as snippet files",
    "usergroups:read": "TANKA_BOT_APPROVERS may name user groups (S...)",
    "users:read": "the PR body names the requester and the approver",
}
# Scope each subscribed event needs (Slack's events reference; see shared reference notes).
EVENT_SCOPES: dict[str, str | None] = {
    "app_home_opened": None,
    "app_mention": "app_mentions:read",
    "message.channels": "channels:history",
    "message.groups": "groups:history",
    "message.im": "im:history",
    "reaction_added": "reactions:read",
    "reaction_removed": "reactions:read",
}
# Scope of each Slack SDK call (python slack_sdk method name). None: needs no scope. A call not
# listed here fails test_every_slack_call_in_the_code_is_known: add it with its scope.
METHOD_SCOPES: dict[str, str | None] = {
    "auth_test": None,
    "apps_connections_open": None,
    "chat_getPermalink": None,
    "chat_postMessage": "chat:write",
    "chat_postEphemeral": "chat:write",
    "chat_update": "chat:write",
    "chat_delete": "chat:write",
    "chat_startStream": "chat:write",
    "chat_appendStream": "chat:write",
    "chat_stopStream": "chat:write",
    "chat_stream": "chat:write",
    "assistant_threads_setStatus": "chat:write",
    "assistant_threads_setSuggestedPrompts": "assistant:write",
    "assistant_threads_setTitle": "assistant:write",
    "reactions_add": "reactions:write",
    "reactions_remove": "reactions:write",
    "reactions_get": "reactions:read",
    "files_upload_v2": "files:write",
    "files_getUploadURLExternal": "files:write",
    "files_completeUploadExternal": "files:write",
    "files_info": "files:read",
    "users_info": "users:read",
    "users_lookupByEmail": "users:read.email",
    "usergroups_users_list": "usergroups:read",
    "usergroups_list": "usergroups:read",
    "conversations_replies": "history",  # channels:history and groups:history
    "conversations_history": "history",
    "conversations_info": "channels:read",
    "conversations_members": "read",  # channels:read and groups:read
    "views_open": None,
    "views_publish": None,
}
SDK_CALL = re.compile(
    r"\.((?:chat|assistant|reactions|files|users|usergroups|conversations|auth|apps|views|pins"
    r"|team|emoji|bookmarks|bots)_\w+)\s*\("
)
# bot.slack.client calls the Web API by method name: `self._call("chat.update", ...)`.
NAMED_CALL = re.compile(r"_call\(\s*\"([a-z]+\.[\w.]+)\"")
LISTENER = re.compile(
    r"\.(event|command|message|action|view|shortcut)\(\s*(?:[\"']([^\"']*)[\"'])?"
)


def scan(sources: dict[str, str]) -> dict[str, set[str]]:
    """Slack calls and listeners named in Python sources."""
    found: dict[str, set[str]] = {"calls": set(), "events": set(), "commands": set()}
    found["interactive"] = set()
    for text in sources.values():
        found["calls"] |= set(SDK_CALL.findall(text))
        found["calls"] |= {name.replace(".", "_") for name in NAMED_CALL.findall(text)}
        for kind, name in LISTENER.findall(text):
            if kind == "event" and name:
                found["events"].add(name)
            elif kind == "message":
                found["events"].add("message")
            elif kind == "command" and name.startswith("/"):
                found["commands"].add(name)
            elif kind in {"action", "view", "shortcut"}:
                found["interactive"].add(kind)
    return found


def bot_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "bot").rglob("*.py"))}


CODE = scan(bot_sources())
# The event listeners are registered in a loop over the code's own list of subscribed events.
CODE["events"] |= EVENT_TYPES


def load(path: Path) -> dict[str, Any]:
    manifest: dict[str, Any] = yaml.safe_load(path.read_text())
    return manifest


HTTP = load(MANIFEST)
SOCKET = load(SOCKET_MANIFEST)


def subscribed_events(code: dict[str, set[str]]) -> set[str]:
    events = set(code["events"]) - {"message"}
    if "message" in code["events"]:  # a message listener: thread replies in both channel kinds
        events |= {"message.channels", "message.groups"}
    return events


def needed_scopes(events: set[str], calls: set[str]) -> set[str]:
    scopes = set(CONTRACT_SCOPES) | {s for e in events if (s := EVENT_SCOPES[e])}
    for call in calls:
        scope = METHOD_SCOPES[call]
        if scope == "history":
            scopes |= {"channels:history", "groups:history"}
        elif scope == "read":
            scopes |= {"channels:read", "groups:read"}
        elif scope:
            scopes.add(scope)
    return scopes


# -- structure ---------------------------------------------------------------------------------


def test_manifest_structure() -> None:
    assert HTTP["_metadata"]["major_version"] == 1
    assert set(HTTP) == {"_metadata", "display_information", "features", "oauth_config", "settings"}
    assert HTTP["display_information"]["name"]
    assert len(HTTP["display_information"]["description"]) <= 140
    assert HTTP["features"]["bot_user"]["display_name"] == "tanka-bot"
    assert HTTP["oauth_config"]["scopes"].keys() == {"bot"}  # no user-token scopes
    settings = HTTP["settings"]
    assert settings["socket_mode_enabled"] is False
    assert settings["interactivity"]["is_enabled"] is True
    assert settings["token_rotation_enabled"] is False


def test_one_request_url_for_events_commands_and_interactivity() -> None:
    settings = HTTP["settings"]
    urls = [
        settings["event_subscriptions"]["request_url"],
        settings["interactivity"]["request_url"],
        *[cmd["url"] for cmd in HTTP["features"]["slash_commands"]],
    ]
    assert len(urls) == 3
    for url in urls:
        parts = urlsplit(url)
        assert parts.scheme == "https"
        assert parts.path == "/slack/events"  # the path `tanka-bot serve` answers on
        assert parts.netloc == "YOUR-HOST"  # a placeholder the README tells to replace


def test_the_tanka_command() -> None:
    commands = HTTP["features"]["slash_commands"]
    assert [cmd["command"] for cmd in commands] == ["/tanka"]
    assert CODE["commands"] <= {"/tanka"}
    hint = commands[0]["usage_hint"]
    for sub in ("new-env", "envs", "status", "help"):
        assert sub in hint


def test_events_cover_the_contract_and_the_code() -> None:
    subscribed = set(HTTP["settings"]["event_subscriptions"]["bot_events"])
    needed = CONTRACT_EVENTS | subscribed_events(CODE)
    assert needed <= subscribed, f"subscribe to {sorted(needed - subscribed)}"
    # An event nobody listens to is answered 404 by Bolt and retried by Slack.
    assert subscribed <= needed, f"nothing handles {sorted(subscribed - needed)}"


def test_the_home_tab_and_the_shortcut_are_declared_as_the_code_handles_them() -> None:
    from bot.inbound.slack_interactive import ASK_SHORTCUT  # noqa: PLC0415 - the code's id

    for manifest in (HTTP, SOCKET):
        features = manifest["features"]
        assert features["app_home"]["home_tab_enabled"] is True
        assert "app_home_opened" in manifest["settings"]["event_subscriptions"]["bot_events"]
        assert [(s["type"], s["callback_id"]) for s in features["shortcuts"]] == [
            ("message", ASK_SHORTCUT)
        ]
        assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert {"action", "view", "shortcut"} <= CODE["interactive"]
    assert "app_home_opened" in CODE["events"]


def test_every_slack_call_in_the_code_is_known() -> None:
    unknown = CODE["calls"] - set(METHOD_SCOPES)
    assert not unknown, f"add the scopes of {sorted(unknown)} to METHOD_SCOPES"


def test_scopes_are_exactly_those_used() -> None:
    scopes = set(HTTP["oauth_config"]["scopes"]["bot"])
    events = set(HTTP["settings"]["event_subscriptions"]["bot_events"])
    needed = needed_scopes(events, CODE["calls"] & set(METHOD_SCOPES))
    assert needed <= scopes, f"missing scopes: {sorted(needed - scopes)}"
    assert scopes <= needed, f"unused scopes: {sorted(scopes - needed)}"
    assert "chat:write.public" not in scopes  # posts only where it was invited


def test_socket_mode_variant_differs_only_in_transport() -> None:
    assert SOCKET["settings"]["socket_mode_enabled"] is True
    assert "request_url" not in SOCKET["settings"]["event_subscriptions"]
    assert "request_url" not in SOCKET["settings"]["interactivity"]
    assert all("url" not in cmd for cmd in SOCKET["features"]["slash_commands"])

    def strip(manifest: dict[str, Any]) -> dict[str, Any]:
        text = yaml.safe_dump(manifest)
        flat: dict[str, Any] = yaml.safe_load(text)
        flat["settings"].pop("socket_mode_enabled")
        flat["settings"]["event_subscriptions"].pop("request_url", None)
        flat["settings"]["interactivity"].pop("request_url", None)
        for cmd in flat["features"]["slash_commands"]:
            cmd.pop("url", None)
        return flat

    assert strip(SOCKET) == strip(HTTP)


# -- the scanner can see what it must ---------------------------------------------------------

SAMPLE = """
@app.event("app_mention")
def on_mention(client, event): client.chat_postMessage(channel="C1", text="hi")

@app.event("reaction_removed")
def on_unreact(client, event):
    client.reactions_add(name="eyes", channel="C1", timestamp="1")
    client.usergroups_users_list(usergroup="S1")

app.message(re.compile("."))(on_message)
app.command("/tanka")(on_command)
client.files_upload_v2(content="diff")
"""


def test_scanner_reads_listeners_and_calls() -> None:
    found = scan({"sample.py": SAMPLE})
    assert found["events"] == {"app_mention", "reaction_removed", "message"}
    assert found["commands"] == {"/tanka"}
    assert found["calls"] == {
        "chat_postMessage",
        "reactions_add",
        "usergroups_users_list",
        "files_upload_v2",
    }
    events = subscribed_events(found)
    assert events == {"app_mention", "reaction_removed", "message.channels", "message.groups"}
    scopes = needed_scopes(events, found["calls"])
    # What the current manifest would lack if the bot started reacting and withdrawing approvals.
    assert scopes - set(HTTP["oauth_config"]["scopes"]["bot"]) == {"reactions:write"}


@pytest.mark.parametrize("path", ["bot/cli.py", "bot/config.py"])
def test_scanner_ignores_non_slack_code(path: str) -> None:
    found = scan({path: (ROOT / path).read_text()})
    assert not any(found.values())
