"""Proposals: the shown diff, its hash, and the fail-closed check that nothing changed since."""

from __future__ import annotations

import hashlib
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from freezegun import freeze_time

from bot.publish.proposal import CHANGED, ProposalChanged, check_unchanged, make_proposal
from tests.git import git
from tools.git import working_diff


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "infra"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "app.libsonnet").write_text("{ image: 'app:1' }\n")
    (root / "lib" / "old.libsonnet").write_text("{ old: true }\n")
    (root / ".gitignore").write_text("vendor/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "initial")
    return root


def edit(root: Path) -> None:
    (root / "lib" / "app.libsonnet").write_text("{ image: 'app:2' }\n")
    (root / "lib" / "new.libsonnet").write_text("{ new: true }\n")
    (root / "lib" / "old.libsonnet").unlink()


def test_proposal_holds_the_shown_diff_and_its_files(repo: Path) -> None:
    edit(repo)
    index_before = (repo / ".git" / "index").read_bytes()
    now = datetime(2024, 4, 5, 10, 0, tzinfo=UTC)
    base = git(repo, "rev-parse", "HEAD").strip()

    with freeze_time(now):
        proposal = make_proposal(repo, "HEAD", title="Bump app", summary="app 2")

    assert proposal.base_commit == base
    # The same text the agent's git_diff tool and the chat show.
    assert proposal.diff == working_diff(repo, base)
    assert "+{ image: 'app:2' }" in proposal.diff
    assert proposal.files == ("lib/app.libsonnet", "lib/new.libsonnet", "lib/old.libsonnet")
    assert (proposal.title, proposal.summary) == ("Bump app", "app 2")
    assert proposal.created == now.timestamp()
    exact = subprocess.run(
        ["git", "diff", "-M", "--binary", "--full-index", base, proposal.tree],
        cwd=repo,
        check=True,
        capture_output=True,
    ).stdout
    assert proposal.diff_hash == hashlib.sha256(exact).hexdigest()
    assert not proposal.empty
    # The checkout's own index (what the user staged) is untouched.
    assert (repo / ".git" / "index").read_bytes() == index_before
    check_unchanged(proposal, repo)  # nothing changed: no error


def test_no_changes_make_an_empty_proposal(repo: Path) -> None:
    (repo / "vendor").mkdir()
    (repo / "vendor" / "x.libsonnet").write_text("{}\n")  # ignored files are not a change
    proposal = make_proposal(repo, "HEAD")
    assert proposal.empty
    assert proposal.diff == ""


@pytest.mark.parametrize(
    "later",
    [
        lambda root: (root / "lib" / "app.libsonnet").write_text("{ image: 'app:3' }\n"),
        lambda root: (root / "lib" / "more.libsonnet").write_text("{}\n"),
        lambda root: (root / "lib" / "new.libsonnet").unlink(),
        lambda root: (root / "lib" / "app.libsonnet").chmod(0o755),
    ],
    ids=["edited", "added", "removed", "mode"],
)
def test_any_later_change_is_refused(repo: Path, later: object) -> None:
    edit(repo)
    proposal = make_proposal(repo, "HEAD")
    assert callable(later)
    later(repo)
    with pytest.raises(ProposalChanged) as info:
        check_unchanged(proposal, repo)
    assert str(info.value) == CHANGED
    assert "review the new diff and approve again" in str(info.value)


def test_a_binary_change_is_shown_as_text_and_caught_by_the_hash(repo: Path) -> None:
    # A NUL byte is all it takes for git to call a file binary, and the agent can write one into
    # any file: so nothing is shown as "Binary files ... differ", and the hash covers the bytes.
    (repo / "logo.png").write_bytes(b"\x89PNG\x00one")
    proposal = make_proposal(repo, "HEAD")
    assert "Binary files" not in proposal.diff
    assert "+\ufffdPNG\x00one" in proposal.diff
    (repo / "logo.png").write_bytes(b"\x89PNG\x00two")
    assert make_proposal(repo, "HEAD").diff_hash != proposal.diff_hash
    with pytest.raises(ProposalChanged):
        check_unchanged(proposal, repo)


def test_a_check_that_cannot_be_made_refuses(repo: Path, tmp_path: Path) -> None:
    edit(repo)
    proposal = make_proposal(repo, "HEAD")
    with pytest.raises(ProposalChanged, match="it could not be compared: git"):
        check_unchanged(proposal, tmp_path / "gone")
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(ProposalChanged, match="could not be compared"):
        check_unchanged(proposal, plain)


def test_the_repositorys_attributes_cannot_hide_an_edit(repo: Path) -> None:
    # Committed before the session: edits to these files would read "Binary files ... differ"
    # (and the diff driver is one the repository names but no config defines).
    (repo / ".gitattributes").write_text("*.libsonnet -diff\n*.jsonnet binary\n*.json diff=x\n")
    (repo / "main.jsonnet").write_text("{ replicas: 1 }\n")
    (repo / "spec.json").write_text('{ "a": 1 }\n')
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "attributes")
    (repo / "lib" / "app.libsonnet").write_text("{ image: 'evil:1' }\n")
    (repo / "main.jsonnet").write_text("{ replicas: 99 }\n")
    (repo / "spec.json").write_text('{ "a": 2 }\n')
    proposal = make_proposal(repo, "HEAD")
    for shown in (proposal.diff, working_diff(repo, "HEAD")):
        assert "Binary files" not in shown
    for line in ("+{ image: 'evil:1' }", "+{ replicas: 99 }", '+{ "a": 2 }'):
        assert line in proposal.diff
        assert line in working_diff(repo, "HEAD")
