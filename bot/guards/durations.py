"""Durations as people type them in the settings file and in Slack: `90s`, `30m`, `62h`, `7d`,
`2w`, or a sum of them (`1h30m`). Pure."""

from __future__ import annotations

import re

_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86_400.0, "w": 604_800.0}
_WHOLE = re.compile(r"^(?:\d{1,6}[smhdw])+$")
_PART = re.compile(r"(\d{1,6})([smhdw])")
FORMAT = "a number and a unit (s, m, h, d, w), e.g. 30m, 62h, 7d or 1h30m"


def parse_duration(text: str) -> float:
    """Seconds; ValueError naming the expected form. Zero is refused: a window must last."""
    cleaned = text.strip().lower()
    if not _WHOLE.match(cleaned):
        raise ValueError(f"{text!r} is not a duration: use {FORMAT}")
    seconds = sum(int(n) * _UNITS[unit] for n, unit in _PART.findall(cleaned))
    if seconds <= 0:
        raise ValueError(f"{text!r} is not a duration: it must be longer than nothing")
    return seconds


def describe(seconds: float) -> str:
    """`2d 14h`, `45m`: for people, the two largest units."""
    left = int(seconds)
    parts = []
    for unit, size in (("d", 86_400), ("h", 3600), ("m", 60)):
        if left >= size:
            parts.append(f"{left // size}{unit}")
            left %= size
    return " ".join(parts[:2]) or f"{max(left, 0)}s"
