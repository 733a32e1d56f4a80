"""The teams part of the settings file: channels, who may steer the agent, approval rules, and
the routes of Alertmanager's alerts into sessions (bot.policy.alert_routes).

Only the YAML file at `TANKA_BOT_CONFIG` holds these (they are structured, not environment
variables). `parse_teams` checks them all at once and returns every problem as one line naming
the key (`channels.C0DEPLOY.approvers[1]: ...`), so start-up reports them together with the rest
of the settings. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.policy.alert_routes import AlertRoute, parse_alert_routes
from bot.policy.entries import entries

TEAM_KEYS = ("channels", "allowed_users", "approval_rules", "alert_routes", "admins")

CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{2,}$")
USER_ID = re.compile(r"^[UW][A-Z0-9]{2,}$")
GROUP_ID = re.compile(r"^S[A-Z0-9]{2,}$")
_GITHUB_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_CHANNEL_FIELDS = ("repo_url", "github_repo", "base_branch", "approvers")
_RULE_FIELDS = ("envs", "approvers", "min_approvals", "allow_self")


@dataclass(frozen=True, slots=True)
class ChannelConfig:
    repo_url: str | None = None  # None: TANKA_BOT_REPO_URL
    github_repo: str | None = None  # None: parsed from repo_url (or TANKA_BOT_GITHUB_REPO)
    base_branch: str | None = None  # None: TANKA_BOT_BASE_BRANCH
    approvers: tuple[str, ...] | None = None  # None: TANKA_BOT_APPROVERS


@dataclass(frozen=True, slots=True)
class ApprovalRule:
    envs: tuple[str, ...]  # fnmatch globs on environment paths
    approvers: tuple[str, ...]  # user ids and user group ids
    min_approvals: int = 1
    allow_self: bool = False


@dataclass(frozen=True, slots=True)
class Teams:
    channels: Mapping[str, ChannelConfig] | None = None  # None: every channel, global settings
    allowed_users: tuple[str, ...] | None = None  # None: anyone may steer
    approval_rules: tuple[ApprovalRule, ...] = field(default=())
    alert_routes: tuple[AlertRoute, ...] = field(default=())  # none: alerts start nothing
    # Who may freeze, override, waive and raise budgets (bot.guards), and see every channel in
    # the web view: user and user group ids. The one reading of the `admins` key.
    admins: tuple[str, ...] = field(default=())

    def channel(self, channel: str) -> ChannelConfig | None:
        """The channel's settings; None when `channels` is set and does not list it."""
        if self.channels is None:
            return ChannelConfig()
        return self.channels.get(channel)


def parse_teams(data: Mapping[str, Any]) -> tuple[Teams, list[str]]:
    """`Teams` from the file's team keys, and every problem found (empty when all is well)."""
    problems: list[str] = []
    channels = _channels(data.get("channels"), problems) if "channels" in data else None
    allowed = (
        parse_principals(data.get("allowed_users"), "allowed_users", problems, empty_ok=False)
        if "allowed_users" in data
        else None
    )
    rules = _rules(data.get("approval_rules"), problems) if "approval_rules" in data else ()
    routes = (
        parse_alert_routes(data.get("alert_routes"), channels, problems)
        if "alert_routes" in data
        else ()
    )
    admins = (
        parse_principals(data.get("admins"), "admins", problems, empty_ok=True)
        if "admins" in data
        else ()
    )
    return Teams(channels, allowed, rules, routes, admins), problems


def _channels(raw: object, problems: list[str]) -> dict[str, ChannelConfig]:
    if not isinstance(raw, Mapping) or not raw:
        problems.append("channels: must map channel ids (C...) to their settings")
        return {}
    out: dict[str, ChannelConfig] = {}
    for key, given in raw.items():
        where = f"channels.{key}"
        if not CHANNEL_ID.match(str(key)):
            problems.append(f"{where}: not a Slack channel id (C..., G... or D...)")
        value = {} if given is None else given
        if not isinstance(value, Mapping):
            problems.append(f"{where}: must be a mapping of {', '.join(_CHANNEL_FIELDS)}")
            continue
        for unknown in sorted(str(k) for k in value if k not in _CHANNEL_FIELDS):
            problems.append(
                f"{where}.{unknown}: unknown channel field; use {', '.join(_CHANNEL_FIELDS)}"
            )
        github_repo = _text(value, "github_repo", where, problems)
        if github_repo is not None and not _GITHUB_REPO.match(github_repo):
            problems.append(f"{where}.github_repo: must look like owner/name (got {github_repo!r})")
        approvers = (
            parse_principals(value.get("approvers"), f"{where}.approvers", problems, empty_ok=True)
            if value.get("approvers") is not None
            else None
        )
        out[str(key)] = ChannelConfig(
            repo_url=_text(value, "repo_url", where, problems),
            github_repo=github_repo,
            base_branch=_text(value, "base_branch", where, problems),
            approvers=approvers,
        )
    return out


def _rules(raw: object, problems: list[str]) -> tuple[ApprovalRule, ...]:
    rules = []
    expected = "a list of rules (envs, approvers, min_approvals)"
    for _, where, value in entries(
        raw, "approval_rules", _RULE_FIELDS, problems, expected=expected, kind="rule"
    ):
        envs = parse_globs(value.get("envs"), f"{where}.envs", problems)
        approvers = parse_principals(
            value.get("approvers"), f"{where}.approvers", problems, empty_ok=False
        )
        minimum = value.get("min_approvals", 1)
        if isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 1:
            problems.append(f"{where}.min_approvals: must be a whole number >= 1 (got {minimum!r})")
            minimum = 1
        allow_self = value.get("allow_self", False)
        if not isinstance(allow_self, bool):
            problems.append(f"{where}.allow_self: must be true or false (got {allow_self!r})")
            allow_self = False
        rules.append(ApprovalRule(envs, approvers, minimum, allow_self))
    return tuple(rules)


def parse_globs(raw: object, where: str, problems: list[str]) -> tuple[str, ...]:
    """A non-empty list of globs on environment paths (approval rules, freezes)."""
    if not isinstance(raw, list) or not raw:
        problems.append(f"{where}: must be a non-empty list of globs on environment paths")
        return ()
    out = []
    for index, glob in enumerate(raw):
        if not isinstance(glob, str) or not glob.strip():
            problems.append(f"{where}[{index}]: an empty glob matches nothing; remove it")
            continue
        out.append(glob.strip().rstrip("/"))
    return tuple(out)


def parse_principals(
    raw: object, where: str, problems: list[str], *, empty_ok: bool = False
) -> tuple[str, ...]:
    """Slack user and user group ids, as a list or comma-separated (approvers, admins, owners)."""
    if isinstance(raw, str):
        raw = [part.strip() for part in raw.split(",") if part.strip()]
    if not isinstance(raw, list) or (not raw and not empty_ok):
        problems.append(f"{where}: must be a non-empty list of user (U...) and group (S...) ids")
        return ()
    out = []
    for index, value in enumerate(raw):
        text = str(value).strip()
        if not (USER_ID.match(text) or GROUP_ID.match(text)):
            problems.append(
                f"{where}[{index}]: {text!r} is not a Slack user id (U...) or user group id (S...)"
            )
            continue
        out.append(text)
    return tuple(out)


def _text(value: Mapping[str, Any], name: str, where: str, problems: list[str]) -> str | None:
    raw = value.get(name)
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        problems.append(f"{where}.{name}: must be a non-empty string")
        return None
    return raw.strip()
