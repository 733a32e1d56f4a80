"""Making a proposal (bot.domain.proposal) from a checkout, and the check that it is unchanged.

An approval publishes a proposal, never "whatever the checkout holds now" (docs/design.md, decision
2). `make_proposal` snapshots the working tree into a git tree object (through a throwaway index, so
the checkout's own index is untouched) and derives from that one immutable snapshot both the diff
shown to people and the hash that binds the approval. `check_unchanged` takes a new snapshot and
refuses when anything differs, or when it cannot tell (fail closed).
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from bot.domain.proposal import Proposal
from bot.publish.errors import PublishError
from tools.git import SHOWN_DIFF_OPTIONS, working_tree_id
from tools.gitrun import Git, GitError

CHANGED = "the checkout changed since the proposal was shown; review the new diff and approve again"
# Same options as tools.git.working_diff (what the agent's git_diff shows): renames detected,
# every file shown as text whatever the repository's .gitattributes say.
_SHOWN_OPTIONS = SHOWN_DIFF_OPTIONS
# What the hash covers: every byte of every file (binary content too) and file modes.
_EXACT_OPTIONS = ("--no-ext-diff", "--no-textconv", "-M", "--binary", "--full-index")


EMPTY_PATCH_HASH = hashlib.sha256(b"").hexdigest()  # diff_hash of two equal trees


class ProposalChanged(PublishError):
    """The checkout no longer matches the proposal that was approved (or cannot be compared)."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(f"{CHANGED} ({detail})" if detail else CHANGED)


def make_proposal(
    root: Path,
    base: str,
    *,
    title: str = "",
    summary: str = "",
    tree: str | None = None,
) -> Proposal:
    """Snapshot the checkout at `root` as a proposal relative to commit `base`; `tree` is the
    working tree's id when the caller has just read it (`snapshot_tree`).

    Raises GitError when git cannot read the checkout or `base` is not a commit.
    """
    git = Git(root, 60.0)
    base_commit, base_tree = git.out("rev-parse", f"{base}^{{commit}}", f"{base}^{{tree}}").split()
    tree = tree or snapshot_tree(root)
    if tree == base_tree:
        # Nothing changed (most turns that answer a question): the diffs below would be empty.
        return Proposal(base_commit=base_commit, tree=tree, diff="", diff_hash=EMPTY_PATCH_HASH,
                        files=(), title=title, summary=summary, created=time.time())  # fmt: skip
    return Proposal(
        base_commit=base_commit,
        tree=tree,
        diff=git.run("diff", *_SHOWN_OPTIONS, base_commit, tree).text(),
        diff_hash=diff_hash(root, base_commit, tree),
        files=tuple(git.out("diff", "--name-only", "--no-renames", base_commit, tree).splitlines()),
        title=title,
        summary=summary,
        created=time.time(),
    )


def snapshot_tree(root: Path) -> str:
    """The tree id of the working tree (ignored files excluded); GitError when git fails."""
    return working_tree_id(root)


def diff_hash(root: Path, base_commit: str, tree: str) -> str:
    """sha256 of the exact patch between two trees (commits work too), as hex."""
    patch = Git(root, 60.0).run("diff", *_EXACT_OPTIONS, base_commit, tree).stdout
    return hashlib.sha256(patch).hexdigest()


def check_unchanged(proposal: Proposal, root: Path) -> None:
    """Raise ProposalChanged unless the checkout still holds exactly `proposal`'s change."""
    try:
        tree = snapshot_tree(root)
        current = diff_hash(root, proposal.base_commit, tree)
    except (GitError, OSError) as exc:
        raise ProposalChanged(f"it could not be compared: {exc}") from None
    if tree != proposal.tree or current != proposal.diff_hash:
        raise ProposalChanged()
