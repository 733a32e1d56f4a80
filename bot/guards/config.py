"""The guard keys of the settings file: `freezes`, `policy_owners` and `budgets` (`admins` is a
teams key: bot.policy.teams). Checked all at once like the teams part: every problem is one
line naming its key (`freezes[0].cron: ...`). Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.guards.durations import FORMAT, parse_duration
from bot.guards.windows import Window, cron_problem, recurring_at
from bot.policy.entries import entries
from bot.policy.teams import CHANNEL_ID, parse_globs, parse_principals

GUARD_KEYS = ("freezes", "policy_owners", "budgets")
_FREEZE_FIELDS = ("envs", "cron", "duration", "from", "to", "reason")
_BUDGET_FIELDS = ("channels", "daily_usd", "monthly_usd")
# A Rego rule as tk check names it: package path and rule (main.deny, main.deny_latest_tag).
RULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")


@dataclass(frozen=True, slots=True)
class FreezeWindow:
    """A freeze of the settings file: recurring (`cron` and `duration`) or fixed (`start`,
    `end`)."""

    envs: tuple[str, ...]  # globs on environment paths
    reason: str
    cron: str | None = None
    duration: float = 0.0
    start: float | None = None
    end: float | None = None

    def active(self, now: float) -> Window | None:
        if self.cron is not None:
            return recurring_at(self.cron, self.duration, now)
        window = Window(self.start or 0.0, self.end or 0.0)
        return window if window.holds(now) else None


@dataclass(frozen=True, slots=True)
class Budget:
    """One spending limit: a channel scope and a period (`day` or `month`, UTC)."""

    channels: tuple[str, ...] | None  # None: all channels
    period: str  # "day" | "month"
    limit_usd: float

    @property
    def scope(self) -> str:
        return "all" if self.channels is None else ",".join(self.channels)

    @property
    def name(self) -> str:
        """`daily budget of <#C0DEPLOY1>`: how replies name it."""
        where = (
            "all channels" if self.channels is None else ", ".join(f"<#{c}>" for c in self.channels)
        )
        return f"{'daily' if self.period == 'day' else 'monthly'} budget of {where}"

    def covers(self, channel: str) -> bool:
        return self.channels is None or channel in self.channels


@dataclass(frozen=True, slots=True)
class GuardSettings:
    freezes: tuple[FreezeWindow, ...] = ()
    policy_owners: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    budgets: tuple[Budget, ...] = ()


def parse_guards(data: Mapping[str, Any]) -> tuple[GuardSettings, list[str]]:
    problems: list[str] = []
    freezes = _freezes(data["freezes"], problems) if "freezes" in data else ()
    owners = _owners(data["policy_owners"], problems) if "policy_owners" in data else {}
    budgets = _budgets(data["budgets"], problems) if "budgets" in data else ()
    return GuardSettings(freezes, owners, budgets), problems


def _freezes(raw: object, problems: list[str]) -> tuple[FreezeWindow, ...]:
    out = []
    expected = "a list of windows (envs, cron and duration, or from and to, and reason)"
    for _, where, value in entries(raw, "freezes", _FREEZE_FIELDS, problems, expected=expected):
        envs = parse_globs(value.get("envs"), f"{where}.envs", problems)
        reason = value.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            problems.append(f"{where}.reason: say why (people read it when approval is refused)")
            reason = "freeze"
        window = _window(value, where, problems)
        if window is not None:
            out.append(FreezeWindow(envs, reason.strip(), *window))
    return tuple(out)


def _window(  # noqa: PLR0911 - one early return per problem reads best
    value: Mapping[str, Any], where: str, problems: list[str]
) -> tuple[str | None, float, float | None, float | None] | None:
    cron, fixed = "cron" in value, "from" in value or "to" in value
    if cron == fixed:
        problems.append(
            f"{where}: give either cron and duration (recurring) or from and to (fixed)"
        )
        return None
    if cron:
        expression = str(value.get("cron", "")).strip()
        problem = cron_problem(expression)
        if problem is not None:
            problems.append(f"{where}.cron: {problem}")
            return None
        try:
            duration = parse_duration(str(value.get("duration", "")))
        except ValueError:
            problems.append(f"{where}.duration: use {FORMAT}")
            return None
        return expression, duration, None, None
    start, end = (
        _moment(value.get("from"), f"{where}.from", problems),
        _moment(value.get("to"), f"{where}.to", problems),
    )
    if start is None or end is None:
        return None
    if end <= start:
        problems.append(f"{where}: `to` must be after `from`")
        return None
    return None, 0.0, start, end


def _moment(raw: object, where: str, problems: list[str]) -> float | None:
    if isinstance(raw, datetime):  # YAML reads an unquoted timestamp as a datetime
        moment = raw
    else:
        try:
            moment = datetime.fromisoformat(str(raw).strip())
        except ValueError:
            moment = None
    if moment is None or moment.tzinfo is None:
        problems.append(f"{where}: must be a time with its zone, e.g. 2026-12-23T00:00:00Z")
        return None
    return moment.timestamp()


def _owners(raw: object, problems: list[str]) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        problems.append(
            "policy_owners: must map rules (main.deny_latest_tag) to user and group ids"
        )
        return {}
    out = {}
    for rule, people in raw.items():
        where = f"policy_owners.{rule}"
        if not RULE_NAME.match(str(rule)):
            problems.append(f"{where}: not a rule name as tk check shows it (main.deny_name)")
            continue
        principals = parse_principals(people, where, problems)
        if principals:
            out[str(rule)] = principals
    return out


def _budgets(raw: object, problems: list[str]) -> tuple[Budget, ...]:
    out = []
    expected = "a list of budgets (channels, daily_usd, monthly_usd)"
    for _, where, value in entries(raw, "budgets", _BUDGET_FIELDS, problems, expected=expected):
        channels = _channels(value.get("channels"), f"{where}.channels", problems)
        found = False
        for key, period in (("daily_usd", "day"), ("monthly_usd", "month")):
            if key not in value:
                continue
            found = True
            amount = value[key]
            if (
                isinstance(amount, bool)
                or not isinstance(amount, int | float)
                or not math.isfinite(amount)
                or amount <= 0
            ):
                problems.append(f"{where}.{key}: must be a number of dollars above 0")
                continue
            out.append(Budget(channels, period, float(amount)))
        if not found:
            problems.append(f"{where}: give daily_usd, monthly_usd or both")
    return tuple(out)


def _channels(raw: object, where: str, problems: list[str]) -> tuple[str, ...] | None:
    if raw == "all":
        return None
    if not isinstance(raw, list) or not raw:
        problems.append(f"{where}: `all`, or a non-empty list of channel ids (C...)")
        return ()
    for index, channel in enumerate(raw):
        if not CHANNEL_ID.match(str(channel)):
            problems.append(f"{where}[{index}]: {channel!r} is not a channel id (C...)")
    return tuple(str(c) for c in raw)
