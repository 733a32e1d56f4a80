"""Views the bot opens or publishes: the new-env modal and the Home tab. Pure: values in,
Slack view JSON out.

Slack's limits shape them: a modal holds at most 100 blocks, its title at most 24 characters, a
static select at most 100 options of at most 75 characters each, and a plain-text input at most
3,000 characters; a Home tab at most 100 blocks; a header's text at most 150 characters.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.domain.pr_state import escape
from bot.slack.blocks import SECTION_LIMIT, Block, clip

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


HOME_SESSIONS = 10
HOME_LIST_LIMIT = 20  # proposals or pull requests listed per section
HOME_LINE_LIMIT = 80  # a request's first line, as listed


@dataclass(frozen=True, slots=True)
class HomeLine:
    """One listed thing: its title (a request's first line), where, and a link to the thread."""

    title: str
    channel: str
    link: str
    detail: str = ""  # the state, or the pull request


def first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "(no request)"
    return line if len(line) <= HOME_LINE_LIMIT else line[: HOME_LINE_LIMIT - 1] + "…"


def _line(item: HomeLine) -> str:
    # A request's words are shown, never interpreted: no <!channel>, no link markup.
    title = escape(item.title).replace("|", "¦")
    detail = f" · {item.detail}" if item.detail else ""
    return f"• <{item.link}|{title}> in <#{item.channel}>{detail}"


def _section_of(heading: str, items: Sequence[HomeLine], empty: str, limit: int) -> list[Block]:
    lines = [_line(i) for i in items[:limit]] or [empty]
    if len(items) > limit:
        lines.append(f"… and {len(items) - limit} more")
    text = "\n".join(lines)
    return [
        {"type": "header", "text": _plain(heading)},
        {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, SECTION_LIMIT, "\n…")}},
    ]


def home(
    sessions: Sequence[HomeLine], waiting: Sequence[HomeLine], pulls: Sequence[HomeLine]
) -> View:
    """The Home tab: the user's sessions, the proposals they may approve, their open pull
    requests. Three sections of two blocks each plus a footer: far under the 100 blocks."""
    blocks = [
        *_section_of("Your sessions", sessions, "No session yet: mention me in a channel "
                     "with a change you want.", HOME_SESSIONS),
        {"type": "divider"},
        *_section_of("Waiting for your approval", waiting, "Nothing waits for your approval.",
                     HOME_LIST_LIMIT),
        {"type": "divider"},
        *_section_of("Your open pull requests", pulls, "No open pull request.", HOME_LIST_LIMIT),
        {"type": "context", "elements": [{"type": "mrkdwn", "text":
            "Approve with the *Approve* button on the latest proposal in its thread. Only "
            "channels you are a member of are shown."}]},
    ]  # fmt: skip
    return {"type": "home", "blocks": blocks}


def with_guardrails(view: View, text: str) -> View:
    """The Home tab with a "Guardrails" section (freezes, holds, budgets: bot.guards) before
    its footer; the view unchanged when `text` is empty."""
    if not text:
        return view
    blocks = list(view["blocks"])
    section = [
        {"type": "divider"},
        {"type": "header", "text": _plain("Guardrails")},
        {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, SECTION_LIMIT, "\n…")}},
    ]
    return {**view, "blocks": [*blocks[:-1], *section, *blocks[-1:]]}
