"""Why publishing an approved proposal stopped; each message says what happened and what to do."""

from __future__ import annotations

from bot.errors import UserError
from bot.github.errors import CodeHostError


class PublishError(UserError):
    """Publishing stopped; the message says what happened and what to do."""


class NothingToPublish(PublishError):
    """The proposal has no changes."""


class ProtectedPathChanged(PublishError):
    """The change touches a path the bot may never publish."""


class BranchConflict(PublishError):
    """The checkout's branches do not allow committing the proposal safely."""


class PushFailed(PublishError):
    """git push failed: nothing was published."""


class PullRequestFailed(PublishError):
    """GitHub failed; `pushed` says whether the branch had already been pushed."""

    def __init__(self, message: str, *, cause: CodeHostError, pushed: bool) -> None:
        super().__init__(message)
        self.cause = cause
        self.pushed = pushed
        self.retryable = cause.retryable
