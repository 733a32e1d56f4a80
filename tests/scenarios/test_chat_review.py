"""`tanka-bot chat` with TANKA_BOT_REVIEW on: the reviewer's progress and findings in the terminal,
its tokens in the turn's line, and the revision after a problem."""

from __future__ import annotations

from pathlib import Path

from tests.scenarios.conftest import Chat
from tests.scenarios.models import AnthropicModel, Call
from tests.scenarios.project import DEV_MAIN

DEV = "environments/dev/main.jsonnet"


def edit(old: str, new: str, call_id: str) -> Call:
    return Call(call_id, "file_edit", {"path": DEV, "old_text": old, "new_text": new})


def test_one_shot_shows_the_review_of_the_revised_change(
    project: Path, anthropic: AnthropicModel, chat: Chat
) -> None:
    anthropic.calls(edit("replicas=1", "replicas=30", "e1"))
    anthropic.answer("Set dev to 30.")
    anthropic.calls(Call("r1", "git_diff", {}), text="Checking the diff.")
    anthropic.answer("- dev is set to 30, the request says 3\nVERDICT: PROBLEMS")
    anthropic.calls(edit("replicas=30", "replicas=3", "e2"))
    anthropic.answer("Fixed: dev runs 3.")
    anthropic.answer("- matches the request\nVERDICT: OK")

    run = chat(project, "scale grafana in dev to 3", anthropic, env={"TANKA_BOT_REVIEW": "true"})

    assert run.code == 0, run.err
    assert (project / DEV).read_text() == DEV_MAIN.replace("replicas=1", "replicas=3")
    out = run.out
    assert "  → review: git_diff\n" in out  # the reviewer's steps in the same progress lines
    assert "\nFixed: dev runs 3.\n" in out
    assert (
        "── review ── no blocking problems found (after one revision)\n- matches the request\n"
    ) in out
    assert "7 model calls" in out  # the reviewer's calls count in the turn
    assert anthropic.request_count() == 7
    assert "edit" not in " ".join(anthropic.tool_names(2))
