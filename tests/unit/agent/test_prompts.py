"""The system prompt names only real tools and states the bot's boundaries."""

from __future__ import annotations

import re

from bot.agent.prompts import SYSTEM_PROMPT, system_prompt

# The agent tools' names as the model sees them (README.md lists them too).
CONTRACT_TOOLS = {
    "file_read",
    "file_write",
    "file_list",
    "file_search",
    "file_delete",
    "file_edit",
    "git_log",
    "git_status",
    "git_diff",
    "tanka_find_environments",
    "tanka_show",
    "tanka_diff",
    "tanka_validate_jsonnet",
    "tanka_format_jsonnet",
    "tanka_importers",
    "tanka_check",
    "tanka_eval",
    "jb_init",
    "jb_install",
    "jb_update",
    "jb_list",
    "github_pr_list",
}
_TOOL_LIKE = re.compile(r"\b(?:file|git|tanka|jb|github)_[a-z_]+\b")


def test_every_tool_named_in_the_prompt_exists() -> None:
    named = set(_TOOL_LIKE.findall(SYSTEM_PROMPT))
    assert named <= CONTRACT_TOOLS, named - CONTRACT_TOOLS
    for required in (
        "tanka_validate_jsonnet",
        "tanka_diff",
        "tanka_importers",
        "tanka_check",
        "file_edit",
    ):
        assert required in named


def test_no_publishing_or_apply_tools_are_suggested() -> None:
    for forbidden in ("git_commit", "git_add", "github_push", "github_pr_create", "tanka_apply"):
        assert forbidden not in SYSTEM_PROMPT
    lowered = SYSTEM_PROMPT.lower()
    assert "nothing is ever applied to a cluster" in lowered
    assert "after a person approves" in lowered
    assert "secrets" in lowered
    assert "summary" in lowered


def test_extra_guidance_is_appended() -> None:
    assert system_prompt() == SYSTEM_PROMPT
    assert system_prompt("   ") == SYSTEM_PROMPT
    text = system_prompt("  Environments are named <team>-<stage>.\n")
    assert text.startswith(SYSTEM_PROMPT)
    assert text.endswith(
        "Additional guidance for this repository:\nEnvironments are named <team>-<stage>.\n"
    )
