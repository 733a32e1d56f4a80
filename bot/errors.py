"""The root of the service's expected failures, and how a front end presents them.

Domain errors say what went wrong and how to fix it; they do not know how they are shown. The
boundary (the CLI today, the Slack runner later) asks `describe` for the message and exit code,
and lets anything it returns None for propagate as a bug.

    BotError
        UserError        bad input, a missing setting, an unusable repository
        ConfigError      the settings cannot be loaded (exit 2; raised by bot.config)
        CodeHostError    bot.github.errors: a GitHub request failed (AuthError, NotFound, ...)
        PublishError     bot.publish.errors: publishing stopped (ProposalChanged, PushFailed, ...)
"""

from __future__ import annotations

EXIT_ERROR = 1
EXIT_CONFIG = 2


class BotError(Exception):
    """An expected failure; the message names what is wrong and how to fix it.

    `exit_code` is the command's exit status when this ends a command (a kind of failure, e.g.
    tk check's 2 for a broken policy; the CLI reads it through `describe`).
    """

    exit_code: int = EXIT_ERROR


class UserError(BotError):
    """Bad input, missing setting, unusable repository: the person can fix it."""


class ConfigError(BotError):
    """Start-up cannot continue; the message lists every problem and the variable to set.

    Defined here rather than in bot.config so that the CLI's error boundary can name it without
    loading pydantic-settings for commands that read no settings.
    """

    exit_code = EXIT_CONFIG

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"invalid configuration ({len(problems)} problem(s)):\n{lines}")


def describe(exc: BaseException) -> tuple[str, int] | None:
    """The message to show and the exit code for an expected failure; None for anything else."""
    if isinstance(exc, BotError):
        return str(exc), exc.exit_code
    return None
