"""One session's scratch checkout: its diff, its patch, and the commit + push of the approval step.

A checkout is pinned to `base_commit`. Everything it reports (diff, patch) is relative to that
commit, so a proposal shows the whole change however many turns or commits produced it, and the
patch can rebuild the checkout anywhere the base commit exists.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from bot.git.askpass import TokenCredentials, askpass_env
from tools import git as git_tools
from tools.gitrun import Git, GitError, refuse_url_credentials

# The `tk agent` CLI's fallback identity, used when the repository's config names nobody. Host
# and global git config are deliberately not read (see tools.gitrun), so this is the usual case.
BOT_NAME = "Tanka Agent"
BOT_EMAIL = "tanka-agent@local"


@dataclass(frozen=True, slots=True)
class Identity:
    name: str
    email: str


@dataclass(frozen=True, slots=True)
class PushResult:
    branch: str
    commit: str  # what the remote branch points at after the push, read back from the remote


@dataclass(frozen=True, slots=True)
class Checkout:
    root: Path
    branch: str
    base_commit: str
    timeout: float = 120.0

    @property
    def git(self) -> Git:
        return Git(self.root, self.timeout)

    def diff(self, *options: str) -> str:
        """The change since the base commit as text (new files included); options e.g. --stat."""
        return git_tools.working_diff(self.root, self.base_commit, *options)

    def has_changes(self) -> bool:
        return bool(self.diff("--name-only").strip())

    def save_patch(self) -> bytes:
        """A binary-safe patch (new, deleted, renamed, binary files, modes) from the base commit."""
        return git_tools.working_diff_bytes(
            self.root, self.base_commit, "--binary", "--full-index", "--no-renames"
        )

    def apply_patch(self, patch: bytes) -> None:
        """Apply a `save_patch` result to this (fresh) checkout."""
        if patch.strip():
            self.git.run("apply", "--binary", "--whitespace=nowarn", "-", input_bytes=patch)

    def head(self) -> str:
        return self.git.out("rev-parse", "HEAD")

    def commit(self, message: str, *, author: Identity | None = None) -> str:
        """Commit every change (new files included) on the session branch; the new commit's id."""
        if not message.strip():
            raise GitError("commit", "the commit message is empty; give one")
        self.git.run("add", "--all", "--", ".")
        if self.git.ok("diff", "--cached", "--quiet"):
            raise GitError("commit", "nothing to commit: the checkout has no changes")
        env = self._identity_env(author)
        self.git.with_env(env).run("commit", "--quiet", "--no-verify", "-F", "-",
                                   input_bytes=message.encode())  # fmt: skip
        return self.head()

    def _identity_env(self, author: Identity | None) -> dict[str, str]:
        configured = self.git.ok("config", "user.name") and self.git.ok("config", "user.email")
        committer = None if configured else Identity(BOT_NAME, BOT_EMAIL)
        env: dict[str, str] = {}
        if committer is not None:
            env |= {"GIT_COMMITTER_NAME": committer.name, "GIT_COMMITTER_EMAIL": committer.email}
        chosen = author or committer
        if chosen is not None:
            env |= {"GIT_AUTHOR_NAME": chosen.name, "GIT_AUTHOR_EMAIL": chosen.email}
        return env

    def push(self, remote_url: str, *, credentials: TokenCredentials | None = None) -> PushResult:
        """Push HEAD to `branch` on the remote and read back the commit it now points at.

        Forced: the branch belongs to the bot (`tanka-bot/...`), and a checkout rebuilt from a
        patch has a different history than the one pushed before.
        """
        refuse_url_credentials(remote_url)
        ref = f"refs/heads/{self.branch}"
        with askpass_env(credentials) as (env, token):
            git = self.git.with_env(env, secrets=(token,))
            git.run("push", "--quiet", "--force", "--no-verify", remote_url, f"HEAD:{ref}")
            listed = git.out("ls-remote", remote_url, ref)
        pushed = listed.split()[0] if listed else ""
        if pushed != self.head():
            raise GitError("push", f"the remote {ref} is at {pushed or 'nothing'}, not our commit")
        return PushResult(self.branch, pushed)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
