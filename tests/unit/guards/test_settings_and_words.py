"""The guard keys of the settings file (every problem named by its key), the `/tanka` guard
commands and the thread's guard words, as people type them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from bot.config import ConfigError, load_settings
from bot.domain.commands import Budget, Freeze, Freezes, Help, Unfreeze, parse_slash
from bot.guards.config import parse_guards
from bot.guards.durations import describe, parse_duration
from bot.guards.replies import Override, Unreadable, Waive, parse_reply

EXAMPLE = """\
admins: [S0SRELEADS, U0OPS]
freezes:
  - envs: ["environments/prod*"]
    cron: "0 18 * * FRI"
    duration: 62h
    reason: weekend freeze
  - envs: ["**"]
    from: 2026-12-23T00:00:00Z
    to: 2027-01-04T00:00:00Z
    reason: holidays
policy_owners:
  main.deny_latest_tag: [S0PLATFORM]
budgets:
  - channels: [C0DEPLOY1]
    daily_usd: 20
    monthly_usd: 300
  - channels: all
    monthly_usd: 1000
"""


def test_the_contracts_example_loads(tmp_path: Path) -> None:
    path = tmp_path / "tanka-bot.yaml"
    path.write_text(EXAMPLE)
    settings = load_settings({"TANKA_BOT_CONFIG": str(path)})
    assert settings.teams.admins == ("S0SRELEADS", "U0OPS")
    weekend, holidays = settings.guards.freezes
    assert weekend.cron == "0 18 * * FRI"
    assert weekend.duration == 62 * 3600
    assert holidays.start == datetime(2026, 12, 23, tzinfo=UTC).timestamp()
    assert holidays.active(datetime(2027, 1, 3, tzinfo=UTC).timestamp()) is not None
    assert settings.guards.policy_owners == {"main.deny_latest_tag": ("S0PLATFORM",)}
    day, month, everywhere = settings.guards.budgets
    assert (day.period, day.limit_usd, day.channels) == ("day", 20.0, ("C0DEPLOY1",))
    assert (month.period, month.limit_usd) == ("month", 300.0)
    assert everywhere.channels is None
    assert everywhere.covers("C0ANY")


def test_every_problem_is_named_by_its_key() -> None:
    data = yaml.safe_load("""
freezes:
  - envs: []
    cron: "61 * * * *"
    duration: 3x
  - envs: [a]
    from: 2026-12-23
    to: yesterday
    reason: r
  - envs: [a]
    cron: "0 0 * * *"
    from: 2026-12-23T00:00:00Z
    reason: r
policy_owners:
  deny: [U0A]
  main.deny_x: [nobody]
budgets:
  - channels: [general]
    daily_usd: -1
  - channels: all
""")
    _, problems = parse_guards(data)
    assert problems == [
        "freezes[0].envs: must be a non-empty list of globs on environment paths",
        "freezes[0].reason: say why (people read it when approval is refused)",
        "freezes[0].cron: '61 * * * *' is not a valid cron expression",
        "freezes[1].from: must be a time with its zone, e.g. 2026-12-23T00:00:00Z",
        "freezes[1].to: must be a time with its zone, e.g. 2026-12-23T00:00:00Z",
        "freezes[2]: give either cron and duration (recurring) or from and to (fixed)",
        "policy_owners.deny: not a rule name as tk check shows it (main.deny_name)",
        "policy_owners.main.deny_x[0]: 'nobody' is not a Slack user id (U...) or user group id "
        "(S...)",
        "budgets[0].channels[0]: 'general' is not a channel id (C...)",
        "budgets[0].daily_usd: must be a number of dollars above 0",
        "budgets[1]: give daily_usd, monthly_usd or both",
    ]


def test_a_bad_settings_file_stops_start_up(tmp_path: Path) -> None:
    path = tmp_path / "tanka-bot.yaml"
    path.write_text("admins: [nobody]\nbudgets: {}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings({"TANKA_BOT_CONFIG": str(path)})
    text = str(caught.value)
    assert "TANKA_BOT_CONFIG: admins[0]: 'nobody' is not a Slack user id" in text
    assert "TANKA_BOT_CONFIG: budgets: must be a list" in text


def test_durations() -> None:
    assert parse_duration("62h") == 62 * 3600
    assert parse_duration("1h30m") == 5400
    assert parse_duration("7d") == 7 * 86_400
    for bad in ("", "0h", "h", "3 days", "-1h", "1.5h"):
        with pytest.raises(ValueError, match="is not a duration"):
            parse_duration(bad)
    assert describe(62 * 3600) == "2d 14h"
    assert describe(45) == "45s"


def test_guard_commands() -> None:
    assert parse_slash("freeze environments/prod* 4h incident 42") == Freeze(
        "environments/prod*", "4h", "incident 42"
    )
    assert isinstance(parse_slash("freeze environments/prod* 4h"), Help)
    assert parse_slash("unfreeze environments/prod*/") == Unfreeze("environments/prod*")
    assert isinstance(parse_slash("unfreeze"), Help)
    assert parse_slash("freezes") == Freezes()
    assert parse_slash("budget") == Budget()
    assert parse_slash("budget raise $50") == Budget(50.0)
    for bad in ("budget raise", "budget raise -5", "budget raise lots", "budget lower 5"):
        assert isinstance(parse_slash(bad), Help), bad


def test_guard_words() -> None:
    assert parse_reply("override customer outage") == Override("customer outage")
    assert isinstance(parse_reply("override"), Unreadable)
    assert parse_reply("waive deny_latest_tag pinned next week for 3d") == Waive(
        "main.deny_latest_tag", "pinned next week", 3 * 86_400.0
    )
    assert parse_reply("waive main.deny_x because") == Waive("main.deny_x", "because", 7 * 86_400.0)
    assert isinstance(parse_reply("waive main.deny_x"), Unreadable)
    assert isinstance(parse_reply("waive main.deny_x ok for 1y"), Unreadable)
    assert isinstance(parse_reply("waive main.deny_x ok for 200d"), Unreadable)
    assert parse_reply("scale prod to 3") is None
    assert parse_reply("overrides are fine") is None


def test_a_reason_repeated_by_the_bot_pings_nobody() -> None:
    assert parse_reply("override <!channel> outage") == Override("&lt;!channel&gt; outage")
    waived = parse_reply("waive main.deny_x <!here> said so")
    assert isinstance(waived, Waive)
    assert waived.reason == "&lt;!here&gt; said so"
