"""Views the bot opens or publishes: the new-env modal. Pure: values in, Slack view JSON out.

Slack's limits shape them: a modal holds at most 100 blocks, its title at most 24 characters, a
static select at most 100 options of at most 75 characters each, and a plain-text input at most
3,000 characters.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

NEW_ENV_CALLBACK = "tanka_new_env"
NAME_BLOCK = "name"
COPY_FROM_BLOCK = "copy_from"
INSTRUCTIONS_BLOCK = "instructions"
MAX_OPTIONS = 100
OPTION_TEXT_LIMIT = 75

View = dict[str, Any]


def _plain(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": text}


def new_env_modal(channel: str, environments: Sequence[str]) -> View:
    """The form behind `/tanka new-env` with no name; `channel` rides in private_metadata so the
    session starts where the command was typed."""
    blocks: list[dict[str, Any]] = [
        {
            "type": "input",
            "block_id": NAME_BLOCK,
            "label": _plain("Name"),
            "hint": _plain("A directory under environments/, e.g. staging or eu-west/staging"),
            "element": {"type": "plain_text_input", "action_id": "value", "max_length": 255,
                        "placeholder": _plain("staging")},
        },
    ]  # fmt: skip
    usable = [e for e in environments if len(e) <= OPTION_TEXT_LIMIT][:MAX_OPTIONS]
    if usable:
        blocks.append({
            "type": "input",
            "block_id": COPY_FROM_BLOCK,
            "optional": True,
            "label": _plain("Copy conventions from"),
            "element": {"type": "static_select", "action_id": "value",
                        "placeholder": _plain("an existing environment"),
                        "options": [{"text": _plain(e), "value": e} for e in usable]},
        })  # fmt: skip
    blocks.append({
        "type": "input",
        "block_id": INSTRUCTIONS_BLOCK,
        "optional": True,
        "label": _plain("Instructions"),
        "element": {"type": "plain_text_input", "action_id": "value", "multiline": True,
                    "max_length": 3000,
                    "placeholder": _plain("e.g. 2 replicas of everything, namespace staging")},
    })  # fmt: skip
    return {
        "type": "modal",
        "callback_id": NEW_ENV_CALLBACK,
        "title": _plain("New environment"),
        "submit": _plain("Create"),
        "close": _plain("Cancel"),
        "private_metadata": json.dumps({"channel": channel}),
        "blocks": blocks,
    }
