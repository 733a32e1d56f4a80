"""`alert_routes` in the settings file: which Alertmanager alert groups start sessions, where.

    alert_routes:
      - match: {alertname: KubeContainerOOMKilled, namespace: "prod|staging"}
        channel: C0DEPLOY1
        instructions: "If a memory change is warranted, propose it; otherwise say why not."
        max_sessions_per_hour: 6
        max_notes_per_hour: 20   # notes in one open session's thread (alerts joining, resolved)
        name: oom    # optional: the requester is `alert:<name>` (default: the route's index)

Matcher values are RE2 expressions anchored at both ends (as Alertmanager's own `=~` matchers
are), compiled once at start-up: RE2 runs in time linear in the input, so a label value from an
alert cannot make matching slow. A label the group does not carry matches as the empty string.
A group matches a route when its common labels (those every alert in it shares) match all of the
route's matchers; the first route that matches wins. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import re2  # type: ignore[import-untyped]

from bot.domain.alerts import REQUESTER_PREFIX
from bot.policy.entries import entries

DEFAULT_MAX_PER_HOUR = 6
# Alertmanager notifies a group every group_interval (5 minutes by default): 12 an hour, each
# with news at most. More is a flood (a token holder sending new fingerprints), held back.
DEFAULT_MAX_NOTES_PER_HOUR = 20
_FIELDS = ("match", "channel", "instructions", "max_sessions_per_hour", "max_notes_per_hour",
           "name")  # fmt: skip
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
CHANNEL_ID = re.compile(r"^[CG][A-Z0-9]{2,}$")  # sessions run in channels, not DMs
_LABEL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class AlertRoute:
    name: str
    match: Mapping[str, Any]  # label name -> compiled RE2 pattern (anchored)
    channel: str
    instructions: str
    max_sessions_per_hour: int = DEFAULT_MAX_PER_HOUR
    max_notes_per_hour: int = DEFAULT_MAX_NOTES_PER_HOUR

    @property
    def requester(self) -> str:
        """Who the route's sessions belong to: a synthetic id no Slack user can have."""
        return f"{REQUESTER_PREFIX}{self.name}"

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(p.fullmatch(labels.get(k, "")) is not None for k, p in self.match.items())


def route_for(routes: Sequence[AlertRoute], labels: Mapping[str, str]) -> AlertRoute | None:
    """The first route whose matchers all match `labels`, or None."""
    return next((r for r in routes if r.matches(labels)), None)


def parse_alert_routes(
    raw: object, channels: Mapping[str, object] | None, problems: list[str]
) -> tuple[AlertRoute, ...]:
    """The routes in `raw`, appending one line per problem (each naming the route) to `problems`.

    `channels`: the settings file's `channels` (None: every channel is served)."""
    routes: list[AlertRoute] = []
    names: set[str] = set()
    expected = "a list of routes (match, channel, instructions)"
    for index, where, value in entries(
        raw, "alert_routes", _FIELDS, problems, expected=expected, kind="route"
    ):
        name = str(value.get("name", index))
        if not _NAME.match(name):
            problems.append(f"{where}.name: {name!r} must be lower-case letters, digits, _ or -")
        elif name in names:
            problems.append(f"{where}.name: {name!r} is used by an earlier route; names are unique")
        names.add(name)
        match = _matchers(value.get("match"), f"{where}.match", problems)
        channel = value.get("channel")
        if not isinstance(channel, str) or not CHANNEL_ID.match(channel):
            problems.append(f"{where}.channel: must be a Slack channel id (C...), got {channel!r}")
            channel = ""
        elif channels is not None and channel not in channels:
            problems.append(
                f"{where}.channel: {channel} is not listed under channels; add it there or "
                "route the alert to a listed channel"
            )
        instructions = value.get("instructions")
        if not isinstance(instructions, str) or not instructions.strip():
            problems.append(f"{where}.instructions: must say what the agent should do")
            instructions = ""
        limit = _per_hour(value, "max_sessions_per_hour", DEFAULT_MAX_PER_HOUR, where, problems)
        notes = _per_hour(value, "max_notes_per_hour", DEFAULT_MAX_NOTES_PER_HOUR, where, problems)
        routes.append(AlertRoute(name, match, channel, instructions.strip(), limit, notes))
    return tuple(routes)


def _per_hour(
    value: Mapping[str, Any], field: str, default: int, where: str, problems: list[str]
) -> int:
    limit = value.get(field, default)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        problems.append(f"{where}.{field}: must be a whole number >= 1 (got {limit!r})")
        return default
    return limit


def _matchers(raw: object, where: str, problems: list[str]) -> dict[str, Any]:
    if not isinstance(raw, Mapping) or not raw:
        problems.append(f"{where}: must map label names to RE2 expressions")
        return {}
    out: dict[str, Any] = {}
    for label, pattern in raw.items():
        if not isinstance(label, str) or not _LABEL.match(label):
            problems.append(f"{where}: {label!r} is not a Prometheus label name")
            continue
        if not isinstance(pattern, str | int | float) or isinstance(pattern, bool):
            problems.append(f"{where}.{label}: must be an RE2 expression (a string)")
            continue
        try:
            out[label] = re2.compile(str(pattern))
        except re2.error as exc:
            problems.append(f"{where}.{label}: {str(pattern)!r} is not a valid RE2 expression "
                            f"({exc}); fix the pattern")  # fmt: skip
    return out
