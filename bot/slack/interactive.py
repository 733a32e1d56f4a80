"""The buttons on the bot's messages, and what a message becomes once it is decided. Pure.

A button is the same act as the matching emoji (bot.inbound.slack_actions turns a click into
that reaction), so the ids here are the only thing Slack and the bot must agree on.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.slack.blocks import Block, clip, context, section

APPROVE_ACTION = "tanka_approve"
CANCEL_ACTION = "tanka_cancel"
ACTIONS_BLOCK = "tanka_actions"  # the block_id of the buttons, so a resolved message drops them
BUTTON_TEXT_LIMIT = 75  # Slack's limit on a button's label


def button(label: str, action_id: str, *, style: str = "") -> Block:
    element: Block = {
        "type": "button",
        "action_id": action_id,
        "text": {"type": "plain_text", "text": clip(label, BUTTON_TEXT_LIMIT, "…")},
    }
    if style:
        element["style"] = style
    return element


def proposal_actions() -> Block:
    """Approve (the approve emoji) and Cancel (the cancel emoji), at the end of a proposal."""
    return {
        "type": "actions",
        "block_id": ACTIONS_BLOCK,
        "elements": [
            button("Approve", APPROVE_ACTION, style="primary"),
            button("Cancel", CANCEL_ACTION),
        ],
    }


def status_blocks(text: str) -> list[Block]:
    """A running turn's status message: its line, and Cancel (the cancel emoji)."""
    return [
        section(text),
        {"type": "actions", "block_id": ACTIONS_BLOCK,
         "elements": [button("Cancel", CANCEL_ACTION)]},
    ]  # fmt: skip


def without_actions(blocks: Sequence[Block]) -> list[Block]:
    return [b for b in blocks if b.get("type") != "actions"]


def resolved(blocks: Sequence[Block], line: str) -> list[Block]:
    """A decided proposal: the same message with no button left, and one line saying why."""
    return [*without_actions(blocks), context(line)]
