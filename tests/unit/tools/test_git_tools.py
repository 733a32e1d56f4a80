"""git_log, git_status and git_diff on a real repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.git import git
from tools.context import ToolContext
from tools.git import TOOLS, working_diff, working_tree_id
from tools.registry import ToolRegistry

REGISTRY = ToolRegistry(TOOLS)
IDENTITY = ["-c", "user.name=Test", "-c", "user.email=test@example.com"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "main.jsonnet").write_text("{ replicas: 1 }\n")
    (root / "old.libsonnet").write_text("{}\n")
    (root / ".gitignore").write_text("*.tmp\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first: add main")
    return root


def run(ctx: ToolContext, name: str, **args: Any) -> str:
    outcome = REGISTRY.execute(ctx, name, args)
    assert not outcome.is_error, outcome.content
    return outcome.content


def test_contract_names() -> None:
    params = {s.name: set(s.input_schema["properties"]) for s in REGISTRY.specs()}
    assert params == {"git_log": {"limit"}, "git_status": set(), "git_diff": set()}


def test_log_lists_newest_first_and_honours_limit(repo: Path) -> None:
    (repo / "main.jsonnet").write_text("{ replicas: 2 }\n")
    git(repo, "commit", "-q", "-am", "second: scale up")
    ctx = ToolContext(root=repo)
    lines = run(ctx, "git_log").splitlines()
    assert [line.split(": ", 1)[1] for line in lines] == ["second: scale up", "first: add main"]
    assert "Test" in lines[0]
    assert len(run(ctx, "git_log", limit=1).splitlines()) == 1


def test_log_on_an_empty_repository(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    assert run(ToolContext(root=tmp_path), "git_log") == "no commits yet"


def test_status_shows_modified_new_and_deleted(repo: Path) -> None:
    ctx = ToolContext(root=repo)
    assert run(ctx, "git_status").endswith("clean: no uncommitted changes")
    (repo / "main.jsonnet").write_text("{ replicas: 5 }\n")
    (repo / "envs").mkdir()
    (repo / "envs" / "new.jsonnet").write_text("{}\n")
    (repo / "old.libsonnet").unlink()
    out = run(ctx, "git_status")
    assert " M main.jsonnet" in out
    assert "?? envs/new.jsonnet" in out
    assert " D old.libsonnet" in out


def test_diff_since_base_includes_new_files_and_leaves_the_index_alone(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    ctx = ToolContext(root=repo, base_commit=base)
    assert run(ctx, "git_diff") == f"no changes since base commit {base[:12]}"
    (repo / "main.jsonnet").write_text("{ replicas: 5 }\n")
    (repo / "new.jsonnet").write_text("{ fresh: true }\n")
    (repo / "scratch.tmp").write_text("ignored\n")
    (repo / "old.libsonnet").unlink()
    # a commit made after the base (as the approval step does) is still part of the change
    git(repo, "add", "main.jsonnet")
    git(repo, "commit", "-q", "-m", "wip")
    out = run(ctx, "git_diff")
    assert "3 files changed" in out
    assert "+{ fresh: true }" in out
    assert "-{ replicas: 1 }" in out
    assert "deleted file mode" in out
    assert "scratch.tmp" not in out
    # the real index still says new.jsonnet is untracked
    assert "?? new.jsonnet" in git(repo, "status", "--short")


def test_diff_without_base_compares_with_head(repo: Path) -> None:
    (repo / "main.jsonnet").write_text("{ replicas: 7 }\n")
    out = run(ToolContext(root=repo), "git_diff")
    assert "+{ replicas: 7 }" in out
    assert out.startswith(" main.jsonnet | 2 +-")


def test_working_diff_in_a_repository_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("hello\n")
    assert "+hello" in working_diff(tmp_path, None)


def test_a_failing_git_command_is_named(repo: Path) -> None:
    outcome = REGISTRY.execute(ToolContext(root=repo, base_commit="0" * 40), "git_diff", {})
    assert outcome.is_error
    assert "git diff failed" in outcome.content


def test_working_tree_id_starts_from_the_checkouts_index(repo: Path) -> None:
    # A skip-worktree entry (a sparse checkout) is absent on disk yet part of the tree: only the
    # checkout's own index knows it. Starting from it also lets git skip re-hashing unchanged files.
    git(repo, "update-index", "--skip-worktree", "old.libsonnet")
    (repo / "old.libsonnet").unlink()
    assert working_tree_id(repo) == git(repo, "rev-parse", "HEAD^{tree}").strip()
    (repo / "main.jsonnet").write_text("{ replicas: 2 }\n")
    assert working_tree_id(repo) != git(repo, "rev-parse", "HEAD^{tree}").strip()


def test_working_tree_id_in_a_linked_worktree_reads_that_worktrees_index(repo: Path) -> None:
    # Its `.git` is a file naming the real index elsewhere: a skip-worktree entry only that index
    # knows tells whether the right one was read.
    linked = repo.parent / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    assert (linked / ".git").is_file()
    git(linked, "update-index", "--skip-worktree", "old.libsonnet")
    (linked / "old.libsonnet").unlink()
    assert working_tree_id(linked) == git(repo, "rev-parse", "HEAD^{tree}").strip()
    (linked / "main.jsonnet").write_text("{ replicas: 3 }\n")
    assert working_tree_id(linked) != git(repo, "rev-parse", "HEAD^{tree}").strip()
