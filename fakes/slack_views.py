"""Slack's rules for views (modals and the Home tab) and for the answers to `view_submission`,
as the fake Slack checks them: what `views.open` / `views.publish` would refuse with
`invalid_arguments`, and what Slack would show as "We had some trouble connecting".

Limits (Slack's reference for views and block elements): at most 100 blocks in a modal or a Home
tab; a modal's title at most 24 characters, its submit and close labels at most 24; `input`
blocks only in modals (a modal with one needs `submit`); callback_id and private_metadata at most
255 and 3,000 characters; a button's label at most 75 characters; an actions block at most 25
elements; a static select at most 100 options, each option's text at most 75 characters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_VIEW_BLOCKS = 100
MAX_TITLE = 24
MAX_CALLBACK_ID = 255
MAX_PRIVATE_METADATA = 3000
MAX_BUTTON_TEXT = 75
MAX_ACTIONS_ELEMENTS = 25
MAX_OPTIONS = 100
MAX_OPTION_TEXT = 75
MAX_LABEL = 2000
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150


def _text(obj: Any) -> str:
    return str(obj.get("text", "")) if isinstance(obj, Mapping) else ""


def element_problems(pointer: str, element: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    kind = element.get("type")
    if kind == "button":
        if len(_text(element.get("text"))) > MAX_BUTTON_TEXT:
            problems.append(f"button text over {MAX_BUTTON_TEXT} characters [{pointer}/text]")
        if element.get("style") not in (None, "primary", "danger"):
            problems.append(f"button style must be primary or danger [{pointer}/style]")
    if kind == "static_select":
        options = element.get("options") or []
        if not options or len(options) > MAX_OPTIONS:
            problems.append(f"a static select needs 1 to {MAX_OPTIONS} options [{pointer}]")
        problems += [
            f"option text over {MAX_OPTION_TEXT} characters [{pointer}/options/{i}]"
            for i, o in enumerate(options)
            if len(_text(o.get("text") if isinstance(o, Mapping) else None)) > MAX_OPTION_TEXT
        ]
    if kind is not None and "action_id" in element and len(str(element["action_id"])) > 255:
        problems.append(f"action_id over 255 characters [{pointer}/action_id]")
    return problems


def block_problems(pointer: str, block: Mapping[str, Any], *, surface: str) -> list[str]:
    """What Slack refuses in one block on `surface` ("message", "modal" or "home")."""
    problems: list[str] = []
    kind = block.get("type")
    if kind == "input":
        if surface != "modal":
            problems.append(f"input blocks are only allowed in modals [{pointer}]")
        if len(_text(block.get("label"))) > MAX_LABEL or not _text(block.get("label")):
            problems.append(f"an input needs a label of 1 to {MAX_LABEL} characters [{pointer}]")
        element = block.get("element")
        if not isinstance(element, Mapping):
            problems.append(f"an input needs an element [{pointer}/element]")
        else:
            problems += element_problems(f"{pointer}/element", element)
    elif kind == "actions":
        elements = block.get("elements") or []
        if not elements or len(elements) > MAX_ACTIONS_ELEMENTS:
            problems.append(f"actions need 1 to {MAX_ACTIONS_ELEMENTS} elements [{pointer}]")
        for i, element in enumerate(elements):
            if isinstance(element, Mapping):
                problems += element_problems(f"{pointer}/elements/{i}", element)
    elif surface == "message":
        pass  # the message checks of fakes.slack_server cover sections and headers there
    elif kind == "section" and len(_text(block.get("text"))) > MAX_SECTION_TEXT:
        problems.append(f"section text over {MAX_SECTION_TEXT} characters [{pointer}/text]")
    elif kind == "header" and not 0 < len(_text(block.get("text"))) <= MAX_HEADER_TEXT:
        problems.append(f"header text must be 1 to {MAX_HEADER_TEXT} characters [{pointer}]")
    return problems


def view_problems(view: Any, *, surface: str) -> list[str]:  # noqa: PLR0912 - one rule a branch
    """Why Slack would refuse `view` on `surface` ("modal" for views.open, "home" for
    views.publish); [] when it is fine."""
    if not isinstance(view, Mapping):
        return ["view must be a JSON object"]
    problems: list[str] = []
    if view.get("type") != surface:
        problems.append(f"view type must be {surface!r} here, not {view.get('type')!r}")
    blocks = view.get("blocks")
    if not isinstance(blocks, list) or not all(isinstance(b, Mapping) for b in blocks):
        return [*problems, "blocks must be a list of objects"]
    if len(blocks) > MAX_VIEW_BLOCKS:
        problems.append(f"no more than {MAX_VIEW_BLOCKS} blocks allowed, got {len(blocks)}")
    if surface == "modal":
        for name in ("title", "submit", "close"):
            text = _text(view.get(name))
            if name == "title" and not text:
                problems.append("a modal needs a title")
            if len(text) > MAX_TITLE:
                problems.append(f"{name} over {MAX_TITLE} characters: {text!r}")
        if any(b.get("type") == "input" for b in blocks) and not view.get("submit"):
            problems.append("a modal with input blocks needs a submit button")
    if len(str(view.get("callback_id", ""))) > MAX_CALLBACK_ID:
        problems.append(f"callback_id over {MAX_CALLBACK_ID} characters")
    if len(str(view.get("private_metadata", ""))) > MAX_PRIVATE_METADATA:
        problems.append(f"private_metadata over {MAX_PRIVATE_METADATA} characters")
    ids = [b.get("block_id") for b in blocks if b.get("block_id") is not None]
    if len(ids) != len(set(ids)):
        problems.append("block_id values must be unique in a view")
    for i, block in enumerate(blocks):
        problems += block_problems(f"/blocks/{i}", block, surface=surface)
    return problems


def submission_answer_problems(answer: Any, view: Mapping[str, Any]) -> list[str]:  # noqa: PLR0911
    """Why Slack would not accept the bot's HTTP answer to a `view_submission` of `view`: an
    empty body closes the modal; otherwise a known `response_action` of the right shape, and
    `errors` naming input block_ids of that view."""
    if answer in (None, "", {}):
        return []
    if not isinstance(answer, Mapping):
        return ["the answer must be empty or a JSON object"]
    action = answer.get("response_action")
    if action == "errors":
        errors = answer.get("errors")
        if not isinstance(errors, Mapping) or not errors:
            return ["response_action errors needs a non-empty errors object"]
        inputs = {b.get("block_id") for b in view.get("blocks") or [] if b.get("type") == "input"}
        return [
            f"errors names {key!r}, not an input block_id of the view"
            for key, why in errors.items()
            if key not in inputs or not isinstance(why, str) or not why
        ]
    if action in ("update", "push"):
        return [f"{action}: {p}" for p in view_problems(answer.get("view"), surface="modal")]
    if action == "clear":
        return []
    return [f"unknown response_action {action!r}"]
