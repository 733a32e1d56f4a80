"""Alertmanager's webhook notification (payload version 4) as values.

Alertmanager posts one notification per alert group: the group's key (`groupKey`, stable for the
group's life), its status (`firing` while any alert fires, else `resolved`), the labels it is
grouped by and those every alert shares, and the alerts themselves. `parse_notification` checks
the shape and raises `AlertPayloadError` naming the first field that is wrong, so the receiver
can answer 400 with it. Everything in here is untrusted text from whoever can fire an alert:
the Slack text escapes it and the agent's request quotes it as data. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bot.errors import UserError

VERSION = "4"
Status = Literal["firing", "resolved"]
# Alertmanager keeps no hard limit; these keep one notification's footprint small anyway.
MAX_ALERTS = 1000
MAX_TEXT = 16_384


# A session an alert started belongs to its route: `alert:<route name>`, an id no Slack user has.
REQUESTER_PREFIX = "alert:"


def mention(user: str) -> str:
    """How Slack text names a session's requester: a person's mention, or the alert route."""
    if is_alert_requester(user):
        return f"alert route `{user.removeprefix(REQUESTER_PREFIX)}`"
    return f"<@{user}>"


def is_alert_requester(user: str) -> bool:
    return user.startswith(REQUESTER_PREFIX)


_BROADCAST = re.compile(r"<!([^<>]*)>")


def quiet_broadcasts(text: str) -> str:
    """`text` with Slack's special mentions (`<!channel>`, `<!here>`, `<!subteam^…>`) shown as
    text: what a model says may echo what it read (an alert, a repository file), so it pings
    nobody."""
    return _BROADCAST.sub(r"&lt;!\1&gt;", text)


def requester_label(user: str) -> str:
    """The requester in plain text (a pull request's body)."""
    if is_alert_requester(user):
        return f"Alertmanager alert route {user.removeprefix(REQUESTER_PREFIX)}"
    return f"Slack user {user}"


class AlertPayloadError(UserError, ValueError):
    """The body is not an Alertmanager version-4 notification; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class Alert:
    status: Status
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    starts_at: str
    ends_at: str
    generator_url: str
    fingerprint: str  # Alertmanager's id of the label set; stable across notifications

    @property
    def name(self) -> str:
        return self.labels.get("alertname", "")


@dataclass(frozen=True, slots=True)
class AlertNotification:
    group_key: str
    status: Status
    receiver: str
    group_labels: Mapping[str, str]
    common_labels: Mapping[str, str]
    common_annotations: Mapping[str, str]
    external_url: str
    alerts: tuple[Alert, ...]
    truncated_alerts: int = 0

    @property
    def alertname(self) -> str:
        """The group's alert name: the common one, else the first alert's."""
        name = self.common_labels.get("alertname") or self.group_labels.get("alertname")
        return name or (self.alerts[0].name if self.alerts else "")

    @property
    def firing(self) -> tuple[Alert, ...]:
        return tuple(a for a in self.alerts if a.status == "firing")


def parse_notification(payload: object) -> AlertNotification:
    """The notification in `payload` (a decoded JSON body); AlertPayloadError when malformed."""
    if not isinstance(payload, Mapping):
        raise AlertPayloadError("the body must be a JSON object (Alertmanager's webhook payload)")
    version = payload.get("version")
    if version != VERSION:
        raise AlertPayloadError(
            f"version must be {VERSION!r} (Alertmanager's webhook payload version 4), "
            f"got {version!r}"
        )
    group_key = _text(payload, "groupKey", required=True)
    if not group_key:
        raise AlertPayloadError("groupKey: must be a non-empty string")
    raw_alerts = payload.get("alerts")
    if not isinstance(raw_alerts, list):
        raise AlertPayloadError("alerts: must be a list of alerts")
    if len(raw_alerts) > MAX_ALERTS:
        raise AlertPayloadError(f"alerts: more than {MAX_ALERTS}; set max_alerts on the receiver")
    alerts = tuple(_alert(a, f"alerts[{i}]") for i, a in enumerate(raw_alerts))
    truncated = payload.get("truncatedAlerts", 0)
    if isinstance(truncated, bool) or not isinstance(truncated, int) or truncated < 0:
        raise AlertPayloadError(f"truncatedAlerts: must be a whole number >= 0, got {truncated!r}")
    return AlertNotification(
        group_key=group_key,
        status=_status(payload.get("status"), "status"),
        receiver=_text(payload, "receiver"),
        group_labels=_pairs(payload.get("groupLabels"), "groupLabels"),
        common_labels=_pairs(payload.get("commonLabels"), "commonLabels"),
        common_annotations=_pairs(payload.get("commonAnnotations"), "commonAnnotations"),
        external_url=_text(payload, "externalURL"),
        alerts=alerts,
        truncated_alerts=truncated,
    )


def to_payload(n: AlertNotification) -> dict[str, Any]:
    """`n` as Alertmanager sent it (the fields read here): parse_notification's inverse, for
    the work queue, which keeps requests as text."""
    return {
        "version": VERSION, "groupKey": n.group_key, "status": n.status,
        "receiver": n.receiver, "groupLabels": dict(n.group_labels),
        "commonLabels": dict(n.common_labels), "commonAnnotations": dict(n.common_annotations),
        "externalURL": n.external_url, "truncatedAlerts": n.truncated_alerts,
        "alerts": [
            {"status": a.status, "labels": dict(a.labels), "annotations": dict(a.annotations),
             "startsAt": a.starts_at, "endsAt": a.ends_at, "generatorURL": a.generator_url,
             "fingerprint": a.fingerprint}
            for a in n.alerts
        ],
    }  # fmt: skip


def _alert(raw: object, where: str) -> Alert:
    if not isinstance(raw, Mapping):
        raise AlertPayloadError(f"{where}: must be an object")
    return Alert(
        status=_status(raw.get("status"), f"{where}.status"),
        labels=_pairs(raw.get("labels"), f"{where}.labels"),
        annotations=_pairs(raw.get("annotations"), f"{where}.annotations"),
        starts_at=_text(raw, "startsAt", where=where),
        ends_at=_text(raw, "endsAt", where=where),
        generator_url=_text(raw, "generatorURL", where=where),
        fingerprint=_text(raw, "fingerprint", where=where),
    )


def _status(raw: object, where: str) -> Status:
    if raw == "firing":
        return "firing"
    if raw == "resolved":
        return "resolved"
    raise AlertPayloadError(f"{where}: must be 'firing' or 'resolved', got {raw!r}")


def _pairs(raw: object, where: str) -> Mapping[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise AlertPayloadError(f"{where}: must be an object of string values")
    out: dict[str, str] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise AlertPayloadError(f"{where}.{key}: must be a string, got {value!r}"[:200])
        if len(value) > MAX_TEXT:
            raise AlertPayloadError(f"{where}.{key}: longer than {MAX_TEXT} characters")
        out[key] = value
    return out


def _text(raw: Mapping[str, Any], name: str, *, where: str = "", required: bool = False) -> str:
    value = raw.get(name)
    label = f"{where}.{name}" if where else name
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise AlertPayloadError(f"{label}: must be a string, got {value!r}"[:200])
    if len(value) > MAX_TEXT:
        raise AlertPayloadError(f"{label}: longer than {MAX_TEXT} characters")
    return value
