"""What a person asked for, from the words they typed. Pure.

`/tanka` subcommands, and the in-thread words that are commands rather than requests to the
agent (`cancel`, `stop`, `rebase`). Everything else is a request for the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# An environment name as a directory under environments/: a path of simple segments.
_ENV_NAME = re.compile(r"^[a-z0-9]([a-z0-9._-]{0,62})?(/[a-z0-9]([a-z0-9._-]{0,62})?){0,3}$")
CANCEL_WORDS = frozenset({"cancel", "stop"})


@dataclass(frozen=True, slots=True)
class NewEnv:
    name: str
    instructions: str


@dataclass(frozen=True, slots=True)
class Help:
    problem: str = ""  # why the help is shown (an unknown subcommand, a bad name), if not asked


@dataclass(frozen=True, slots=True)
class Envs:
    pass


@dataclass(frozen=True, slots=True)
class Status:
    pass


@dataclass(frozen=True, slots=True)
class Freeze:
    """`/tanka freeze ENV_GLOB DURATION REASON` (admins; bot.handlers.guard_commands)."""

    glob: str
    duration: str  # as typed: bot.guards.durations reads it
    reason: str


@dataclass(frozen=True, slots=True)
class Unfreeze:
    glob: str


@dataclass(frozen=True, slots=True)
class Freezes:
    pass


@dataclass(frozen=True, slots=True)
class Budget:
    """`/tanka budget`, or `/tanka budget raise USD` (admins) when `raise_usd` is set."""

    raise_usd: float | None = None


GuardAction = Freeze | Unfreeze | Freezes | Budget
SlashAction = NewEnv | Help | Envs | Status | GuardAction


def parse_slash(text: str) -> SlashAction:  # noqa: PLR0911 - one early return per rule reads best
    words = text.split(maxsplit=2)
    if not words:
        return Help()
    verb = words[0].lower()
    if verb == "help":
        return Help()
    if verb == "envs":
        return Envs()
    if verb == "status":
        return Status()
    if verb == "new-env":
        if len(words) < 2:
            return Help("`new-env` needs a name, e.g. `/tanka new-env staging`")
        name = words[1].strip("/")
        if not _ENV_NAME.match(name) or ".." in name:
            return Help(
                f"`{words[1][:64]}` is not a usable environment name: use lower-case letters, "
                "digits, `-`, `_` or `.` (e.g. `staging` or `eu-west/staging`)"
            )
        return NewEnv(name, words[2].strip() if len(words) > 2 else "")
    if verb in ("freeze", "unfreeze", "freezes", "budget"):
        return _guard_action(verb, text)
    return Help(f"unknown subcommand `{words[0][:32]}`")


def _guard_action(verb: str, text: str) -> SlashAction:  # noqa: PLR0911 - one return per form
    words = text.split(maxsplit=3)
    if verb == "freezes":
        return Freezes()
    if verb == "freeze":
        if len(words) < 4:
            return Help("write `/tanka freeze ENV_GLOB DURATION REASON`, e.g. "
                        "`/tanka freeze environments/prod* 4h incident 42`")  # fmt: skip
        return Freeze(words[1].rstrip("/"), words[2], words[3].strip())
    if verb == "unfreeze":
        if len(words) != 2:
            return Help("write `/tanka unfreeze ENV_GLOB`, with the glob `/tanka freezes` shows")
        return Unfreeze(words[1].rstrip("/"))
    if len(words) == 1:
        return Budget()
    amount = _usd(words[2]) if len(words) == 3 and words[1].lower() == "raise" else None
    if amount is None:
        return Help("write `/tanka budget`, or `/tanka budget raise USD` (e.g. `raise 50`)")
    return Budget(amount)


def _usd(text: str) -> float | None:
    try:
        amount = float(text.strip().removeprefix("$"))
    except ValueError:
        return None
    return amount if 0 < amount < 1_000_000 else None


def is_cancel(text: str) -> bool:
    """A reply that is only `cancel` or `stop` (any case, trailing punctuation allowed)."""
    return text.strip().rstrip(".!").lower() in CANCEL_WORDS


def is_rebase(text: str) -> bool:
    """A reply that is only `rebase` (any case, trailing punctuation allowed)."""
    return text.strip().rstrip(".!").lower() == "rebase"


def new_env_prompt(action: NewEnv) -> str:
    extra = f"\n\nAdditional instructions from the requester: {action.instructions}"
    return (
        f"Create a new Tanka environment named `{action.name}`. Follow the repository's existing "
        "conventions: look at how the current environments are laid out (directory, spec.json or "
        "inline environment, namespace, shared libraries, naming) and make the new one the same "
        "way. Validate it renders, and summarise what you created."
        + (extra if action.instructions else "")
    )


HELP_TEXT = "\n".join(
    [
        "*tanka-bot* prepares changes to this Tanka repository and opens pull requests; "
        "it never applies anything.",
        "• `@tanka-bot <request>`: start a session in a thread (reply in the thread to continue)",
        "• `/tanka new-env <name> [instructions]`: create an environment following the "
        "repository's conventions",
        "• `/tanka envs`: list the environments · `/tanka status`: this channel's active sessions",
        "• `/tanka freezes`: what is frozen, until when · `/tanka budget`: this channel's model "
        "spend · admins: `/tanka freeze ENV_GLOB DURATION REASON`, `/tanka unfreeze ENV_GLOB`, "
        "`/tanka budget raise USD`, and `override REASON` in a frozen proposal's thread",
        "• In a session thread: press *Approve* on the latest proposal (or react with "
        ":{approve}:) to open a pull request; press *Cancel*, react with :{cancel}: or reply "
        "`cancel` to stop the running turn (edits are kept); reply `rebase` to move the change "
        "onto the newest base branch",
        "• `/tanka new-env` alone opens a form; the app's Home tab lists your sessions and what "
        "waits for your approval; *Ask tanka-bot* in a message's menu starts a session on it",
    ]
)


def help_text(approve_emoji: str, cancel_emoji: str, problem: str = "") -> str:
    text = HELP_TEXT.format(approve=approve_emoji, cancel=cancel_emoji)
    return f"{problem}\n\n{text}" if problem else text
