"""What a thread is told when a job fails: the one place the runtime turns errors into replies.

By the roots of bot.errors: a BotError's message says what is wrong and how to fix it, so it is
the reply; a dependency that is down is named, Slack included (its own refusal is said once it
takes posts again, best effort) and the store (nothing was started: try again in a minute); a
Bug, or anything else, is logged with its traceback. `kind` is the label of tanka_bot_errors_total.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import BotError, Bug, ServiceUnavailable, UserError

STORE_DOWN = (
    ":warning: I can't take work right now: my session store is unavailable ({error}). "
    "Nothing was started; try again in a minute."
)
SLACK_REFUSED = (
    ":warning: Slack did not take one of my messages ({error}); saved edits are kept. "
    "Reply to try again."
)
INTERNAL = (
    ":warning: Something went wrong on my side ({name}); saved edits are kept. Reply to try again."
)


@dataclass(frozen=True, slots=True)
class Failure:
    kind: str  # the errors metric's label: the dependency, "user" or "internal"
    reply: str | None  # None: nothing to post
    expected: bool  # False: log the traceback, the code is at fault


def failure(exc: Exception) -> Failure:
    if isinstance(exc, ServiceUnavailable):
        if exc.dependency == "slack":
            return Failure("slack", SLACK_REFUSED.format(error=exc), expected=True)
        if exc.dependency == "store":
            return Failure("store", STORE_DOWN.format(error=exc), expected=True)
        return Failure(exc.dependency, f":warning: {exc}", expected=True)
    if isinstance(exc, BotError):
        kind = "user" if isinstance(exc, UserError) else "internal"
        return Failure(kind, f":warning: {exc}", expected=True)
    if isinstance(exc, Bug):  # its message names what could not be read: worth showing
        return Failure("internal", f":warning: {exc}", expected=False)
    return Failure("internal", INTERNAL.format(name=type(exc).__name__), expected=False)
