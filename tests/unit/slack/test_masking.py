"""bot.slack.masking: nothing a session's mask knows reaches Slack, whatever the message."""

from __future__ import annotations

import json
from typing import Any

from bot.domain.proposal import Proposal
from bot.slack.blocks import proposal
from bot.slack.masking import MaskingChat, mask_tree
from fakes.chat import RecordingChat

SECRET = "hunter2-s3cr3t"


def mask(text: str) -> str:
    return text.replace(SECRET, "***")


def nested_blocks() -> list[dict[str, Any]]:
    return [
        {"type": "section", "text": {"type": "mrkdwn", "text": f"password: {SECRET}"}},
        {
            "type": "section",
            "fields": [
                {"type": "mrkdwn", "text": "plain"},
                {"type": "plain_text", "text": f"x{SECRET}y", "emoji": True},
            ],
            "accessory": {
                "type": "button",
                "text": {"type": "plain_text", "text": SECRET},
                "value": f"v={SECRET}",
            },
        },
        {"type": "context", "elements": ({"type": "mrkdwn", "text": f"{SECRET} {SECRET}"},)},
        {"type": "divider"},
        {
            "type": "rich_text",
            "elements": [
                {
                    "type": "rich_text_preformatted",
                    "elements": [{"type": "text", "text": f"data:\n  key: {SECRET}\n"}],
                    "border": 0,
                },
            ],
        },
    ]


def test_post_masks_text_and_every_string_in_nested_blocks() -> None:
    inner = RecordingChat({"S0SRE": frozenset({"U1"})})
    blocks = nested_blocks()
    original = json.dumps(blocks)
    ts = MaskingChat(inner, mask).post("C1", f"fallback {SECRET}", thread_ts="1.2", blocks=blocks)
    assert ts == "1700000000.000900"
    [(name, call)] = inner.calls
    assert name == "post"
    assert call["text"] == "fallback ***"
    assert call["thread_ts"] == "1.2"
    sent = json.dumps(call["blocks"], ensure_ascii=False)
    assert SECRET not in sent
    assert sent.count("***") == 7
    # Structure and non-string values survive; the caller's blocks are not modified.
    assert call["blocks"][1]["fields"][1]["emoji"] is True
    assert call["blocks"][4]["elements"][0]["border"] == 0
    assert call["blocks"][3] == {"type": "divider"}
    assert json.dumps(blocks) == original


def test_post_without_blocks() -> None:
    inner = RecordingChat({"S0SRE": frozenset({"U1"})})
    MaskingChat(inner, mask).post("C1", SECRET)
    assert inner.calls == [
        ("post", {"channel": "C1", "text": "***", "thread_ts": None, "blocks": None})
    ]


def test_update_masks_text_and_blocks() -> None:
    inner = RecordingChat({"S0SRE": frozenset({"U1"})})
    MaskingChat(inner, mask).update("C1", "9.9", f"status {SECRET}", blocks=nested_blocks())
    [(name, call)] = inner.calls
    assert name == "update"
    assert call["ts"] == "9.9"
    assert SECRET not in json.dumps(call)


def test_ephemeral_is_masked() -> None:
    inner = RecordingChat({"S0SRE": frozenset({"U1"})})
    MaskingChat(inner, mask).ephemeral("C1", "U1", f"note {SECRET}", thread_ts="1.2")
    assert inner.calls == [
        ("ephemeral", {"channel": "C1", "user": "U1", "text": "note ***", "thread_ts": "1.2"})
    ]


def test_upload_masks_title_and_content() -> None:
    inner = RecordingChat({"S0SRE": frozenset({"U1"})})
    MaskingChat(inner, mask).upload(
        "C1", "1.2", filename="rendered.diff", title=f"diff {SECRET}", content=f"+ {SECRET}\n"
    )
    [(_, call)] = inner.calls
    assert call["title"] == "diff ***"
    assert call["content"] == "+ ***\n"
    assert call["filename"] == "rendered.diff"


def test_a_whole_proposal_with_snippets_is_masked() -> None:
    long_diff = "".join(f"+  password: {SECRET}{i}\n" for i in range(400))
    shown = Proposal(base_commit="a", tree="b", diff_hash="c", files=(f"secrets/{SECRET}.yaml",),
                     diff=f"+{SECRET}\n")  # fmt: skip
    rendered = proposal(shown, number=1, envs=[], rendered=long_diff, emoji="ok")
    inner = RecordingChat({"S0SRE": frozenset({"U1"})})
    chat = MaskingChat(inner, mask)
    for snippet in rendered.snippets:
        chat.upload(
            "C1", "1.2", filename=snippet.filename, title=snippet.title, content=snippet.content
        )
    chat.post("C1", rendered.text, thread_ts="1.2", blocks=rendered.blocks)
    assert SECRET in json.dumps(rendered.blocks) + long_diff  # the input had it
    assert SECRET not in json.dumps(inner.calls)


def test_reads_pass_through_unmasked() -> None:
    chat = MaskingChat(RecordingChat({"S0SRE": frozenset({"U1"})}), mask)
    assert chat.group_members("S0SRE") == frozenset({"U1"})
    assert chat.thread_of("C1", "5.5") == "1700000000.000100"
    assert chat.permalink("C1", "1.2") == "https://example.slack.com/archives/C1/p12"


def test_mask_tree_keeps_non_strings() -> None:
    assert mask_tree({"a": [1, None, 2.5, True, SECRET]}, mask) == {
        "a": [1, None, 2.5, True, "***"]
    }
