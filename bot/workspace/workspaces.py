"""Each session's scratch checkout on this replica, kept in step with the stored patch.

The store holds the truth: the base commit and the latest patch (saved after every tool call
that changed files). A checkout on local disk is a cache of it; a marker in its .git directory
records which revision of the patch it holds, so a replica that finds an older checkout (another
replica served the thread since) or none (a restart, a new pod) rebuilds it from the patch.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from bot.domain.sessions import Session
from bot.errors import ServiceUnavailable
from bot.git.checkout import Checkout
from bot.git.rebase import reapply
from bot.store.base import Blobs
from bot.workspace.repo_cache import RepoCache
from tools.gitrun import GitError

log = logging.getLogger(__name__)

_MARKER = "tanka-bot-revision"


class WorkspaceError(ServiceUnavailable):
    """The session's checkout could not be made or rebuilt; the message says why."""

    dependency = "workspace"


def patch_blob(session: Session) -> str:
    return f"patch:{session.key.id}"


@dataclass(frozen=True, slots=True)
class Rebased:
    """The outcome of `Workspaces.rebase`: `checkout` is None when nothing changed."""

    old_base: str
    new_base: str
    checkout: Checkout | None = None  # on the new base, holding the change (saved)
    conflicts: tuple[str, ...] = ()  # files that could not be merged; the session is unchanged


class Workspaces:
    def __init__(self, cache: RepoCache, store: Blobs, *, base_branch: str, ttl: float) -> None:
        self.cache = cache
        self.store = store
        self.base_branch = base_branch
        self.ttl = ttl

    def open(self, session: Session) -> Checkout:
        """The session's checkout, made, reused or rebuilt; sets base commit and branch when new."""
        name = session.checkout_name
        try:
            path = self.cache.session_path(name)
            if not session.base_commit:
                checkout = self.cache.start(
                    name, base_branch=self.base_branch, branch=session.branch
                )
                session.base_commit = checkout.base_commit
                self._mark(checkout.root, session.revision)
                return checkout
            if self._marked(path) == session.revision:
                return Checkout(path, session.branch, session.base_commit)
            patch = self.store.get_blob(patch_blob(session))
            if patch is None and session.revision > 0:
                raise WorkspaceError(
                    "the saved edits of this session are missing from the store (expired or "
                    "lost); start a new session"
                )
            log.info("rebuilding checkout %s at revision %d", name, session.revision)
            checkout = self.cache.restore(
                name, base_commit=session.base_commit, branch=session.branch, patch=patch or b""
            )
        except GitError as exc:
            raise WorkspaceError(f"the checkout could not be prepared: {exc}") from None
        except OSError as exc:
            raise WorkspaceError(
                f"the checkout could not be prepared: {exc.strerror or exc} (TANKA_BOT_WORKDIR)"
            ) from None
        self._mark(checkout.root, session.revision)
        return checkout

    def save(self, session: Session, checkout: Checkout) -> None:
        """Store the checkout's patch and bump the session's revision (caller saves the session)."""
        try:
            patch = checkout.save_patch()
        except GitError as exc:
            raise WorkspaceError(f"the edits could not be read for saving: {exc}") from None
        self.store.put_blob(patch_blob(session), patch, self.ttl)
        session.revision += 1
        self._mark(checkout.root, session.revision)

    def rebase(self, session: Session) -> Rebased:
        """Fetch, then move the session's change onto its base branch's newest commit.

        Clean: the session's base commit and patch (a new revision) change, and the checkout is
        rebuilt on the new base (the caller saves the session). Conflicts, or a base that has not
        moved: the session and its stored patch are left as they were.
        """
        old = session.base_commit
        try:
            self.cache.fetch()
            new = self.cache.commit_of(session.base_branch)
            if new == old:
                return Rebased(old, new)
            patch = self.store.get_blob(patch_blob(session))
            if patch is None and session.revision > 0:
                raise WorkspaceError("the saved edits of this session are missing from the store "
                                     "(expired or lost); start a new session")  # fmt: skip
            checkout = self.cache.restore(
                session.checkout_name, base_commit=new, branch=session.branch, patch=b""
            )
            conflicts = reapply(checkout, patch or b"")
        except GitError as exc:
            self.cache.discard(session.checkout_name)  # rebuilt from the store when next opened
            raise WorkspaceError(f"the rebase could not be done: {exc}") from None
        if conflicts:
            self.cache.discard(session.checkout_name)
            return Rebased(old, new, conflicts=conflicts)
        session.base_commit = new
        self.save(session, checkout)
        return Rebased(old, new, checkout=checkout)

    def discard(self, session: Session) -> None:
        self.cache.discard(session.checkout_name)
        self.store.delete_blob(patch_blob(session))

    @staticmethod
    def _mark(root: Path, revision: int) -> None:
        (root / ".git" / _MARKER).write_text(str(revision), encoding="ascii")

    @staticmethod
    def _marked(root: Path) -> int | None:
        try:
            return int((root / ".git" / _MARKER).read_text(encoding="ascii"))
        except (OSError, ValueError):
            return None
