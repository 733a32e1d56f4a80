"""The agent's lint in a child process: the same diagnostics as in-process, bounded in time and
memory, with errors that say what happened."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tools.errors import ToolError
from tools.sandbox import CommandCancelled
from tools.tanka.source.lint import lint_paths
from tools.tanka.source.lint_child import lint_in_child

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_tools" / "lint"


def test_the_child_finds_what_the_process_finds() -> None:
    ours = lint_in_child([FIXTURE], root=FIXTURE)
    assert ours == lint_paths([FIXTURE], root=FIXTURE)
    assert ours  # the fixture has problems to find


def big_file(tmp_path: Path, element: str, count: int) -> Path:
    """The fixture repository with a large array file in it (seconds to lint)."""
    shutil.copytree(FIXTURE, tmp_path / "repo")
    big = tmp_path / "repo" / "big.libsonnet"
    big.write_text("[\n" + f"{element},\n" * count + "]\n")
    return big


def test_a_lint_past_its_memory_names_the_limit(tmp_path: Path) -> None:
    big = big_file(tmp_path, "{ a: 1, b: [1, 2, 3], c: 'x' }", 200_000)
    with pytest.raises(ToolError, match="the lint needed more than 1 MB"):
        lint_in_child([big], root=tmp_path / "repo", memory_mb=1)


def test_a_lint_past_its_time_is_a_tool_error(tmp_path: Path) -> None:
    big = big_file(tmp_path, "{ a: 1 }", 50_000)
    with pytest.raises(ToolError, match="timed out"):
        lint_in_child([big], root=tmp_path / "repo", timeout=0.2)


def test_a_cancelled_turn_stops_the_lint_at_once(tmp_path: Path) -> None:
    big = big_file(tmp_path, "{ a: 1 }", 200_000)  # tens of seconds of linting
    polls: list[int] = []

    def cancelled() -> bool:
        polls.append(1)
        return len(polls) >= 2  # the second poll: the child is running by then

    with pytest.raises(CommandCancelled, match="cancelled"):
        lint_in_child([big], root=tmp_path / "repo", cancelled=cancelled)
    assert len(polls) == 2
