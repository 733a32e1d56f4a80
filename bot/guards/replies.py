"""The guard words people reply in a session thread (pure):

- `override REASON`: an admin lets the thread's latest proposal pass a freeze;
- `waive RULE REASON [for 7d]`: a policy owner lifts a failing Rego rule for the thread.

A reason is said again in the thread and the pull request: Slack's broadcasts in it
(`<!channel>`) are kept as text, so repeating it pings nobody.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.domain.alerts import quiet_broadcasts
from bot.guards.durations import parse_duration

DEFAULT_WAIVER = 7 * 86_400.0
LONGEST_WAIVER = 90 * 86_400.0
_OVERRIDE = re.compile(r"^override(?:\s+(?P<reason>.+))?$", re.IGNORECASE | re.DOTALL)
_WAIVE = re.compile(
    r"^waive(?:\s+(?P<rule>\S+))?(?:\s+(?P<reason>.+?))??(?:\s+for\s+(?P<for>\S+))?$",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Override:
    reason: str


@dataclass(frozen=True, slots=True)
class Waive:
    rule: str
    reason: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Unreadable:
    problem: str  # how to write it


GuardReply = Override | Waive | Unreadable


def parse_reply(text: str) -> GuardReply | None:
    """The guard word of a reply, or None when it is an ordinary message."""
    words = text.strip()
    first = words.split(maxsplit=1)[0].lower() if words else ""
    if first == "override":
        found = _OVERRIDE.match(words)
        reason = (found.group("reason") or "").strip() if found else ""
        if not reason:
            return Unreadable("say why: `override REASON`")
        return Override(quiet_broadcasts(reason))
    if first == "waive":
        return _waive(words)
    return None


def _waive(words: str) -> GuardReply:
    usage = (
        "write `waive RULE REASON` (optionally ending `for 7d`), e.g. "
        "`waive main.deny_latest_tag pinned upstream next week for 3d`"
    )
    found = _WAIVE.match(words)
    if found is None or not found.group("rule") or not (found.group("reason") or "").strip():
        return Unreadable(usage)
    seconds = DEFAULT_WAIVER
    if found.group("for"):
        try:
            seconds = parse_duration(found.group("for"))
        except ValueError as exc:
            return Unreadable(str(exc))
        if seconds > LONGEST_WAIVER:
            return Unreadable("a waiver lasts 90 days at most; waive it again when it ends")
    reason = quiet_broadcasts(found.group("reason").strip())
    return Waive(normal_rule(found.group("rule")), reason, seconds)


def normal_rule(rule: str) -> str:
    """`deny_latest_tag` -> `main.deny_latest_tag`: tk check names rules with their package."""
    cleaned = rule.strip().strip("`")
    return cleaned if "." in cleaned else f"main.{cleaned}"
