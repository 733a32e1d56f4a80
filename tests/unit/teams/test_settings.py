"""The settings file's team keys and TANKA_BOT_PRICES: checked at start-up, every problem named."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.config import ConfigError, Settings, load_settings
from bot.domain.prices import Price, dollars, parse_prices, turn_cost
from bot.policy.teams import ApprovalRule, ChannelConfig

GOOD = {
    "channels": {
        "C0DEPLOY": {"repo_url": "git@github.com:acme/deploy.git", "approvers": ["S0SRE"]},
        "C0INFRA": None,
    },
    "allowed_users": ["S0ENG", "U0123"],
    "approval_rules": [
        {"envs": ["environments/prod*"], "approvers": ["S0SRE"], "min_approvals": 2,
         "allow_self": False},
    ],
}  # fmt: skip


def load(tmp_path: Path, data: object, **env: str) -> Settings:
    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_settings({"TANKA_BOT_CONFIG": str(path), **env})


def test_a_good_file_gives_each_channel_its_own_settings(tmp_path: Path) -> None:
    settings = load(tmp_path, {**GOOD, "TANKA_BOT_BASE_BRANCH": "trunk"},
                    TANKA_BOT_REPO_URL="https://github.com/acme/infra.git")  # fmt: skip
    teams = settings.teams
    assert teams.allowed_users == ("S0ENG", "U0123")
    assert teams.approval_rules == (ApprovalRule(("environments/prod*",), ("S0SRE",), 2, False),)
    assert teams.channel("C0INFRA") == ChannelConfig()
    assert teams.channel("C0OTHER") is None
    deploy = settings.channel_settings("C0DEPLOY")
    assert deploy is not None
    assert deploy.repo_url == "git@github.com:acme/deploy.git"
    assert deploy.github_repo is None  # parsed from the channel's URL, not the global one
    assert deploy.base_branch == "trunk"
    assert deploy.approvers == ("S0SRE",)
    assert settings.channel_settings("C0INFRA") is settings
    assert settings.channel_settings("C0OTHER") is None


def test_without_team_keys_every_channel_uses_the_global_settings(tmp_path: Path) -> None:
    settings = load_settings({})
    assert settings.channel_settings("C0ANY") is settings
    assert settings.teams.allowed_users is None
    assert settings.teams.approval_rules == ()


def test_every_bad_key_is_named_in_one_message(tmp_path: Path) -> None:
    bad = {
        "channels": {
            "general": {"repo_url": "x", "colour": "blue"},
            "C0OK": {"approvers": ["alice", "S0SRE"], "github_repo": "not a slug"},
        },
        "allowed_users": ["U0OK", "bob"],
        "approval_rules": [
            {"envs": ["", "environments/prod*"], "approvers": ["S0SRE"], "min_approvals": 0},
            {"envs": [], "approvers": [], "allow_self": "yes", "mins": 2},
            "not a rule",
        ],
        "tanka_bot_colour": "blue",
    }
    with pytest.raises(ConfigError) as info:
        load(tmp_path, bad, TANKA_BOT_MAX_STEPS="0")
    message = str(info.value)
    for needle in (
        "channels.general: not a Slack channel id",
        "channels.general.colour: unknown channel field",
        "channels.C0OK.approvers[0]: 'alice' is not a Slack user id",
        "channels.C0OK.github_repo: must look like owner/name",
        "allowed_users[1]: 'bob' is not a Slack user id",
        "approval_rules[0].envs[0]: an empty glob",
        "approval_rules[0].min_approvals: must be a whole number >= 1 (got 0)",
        "approval_rules[1].envs: must be a non-empty list",
        "approval_rules[1].approvers: must be a non-empty list",
        "approval_rules[1].allow_self: must be true or false",
        "approval_rules[1].mins: unknown rule field",
        "approval_rules[2]: must be a mapping",
        "unknown key 'tanka_bot_colour'",
        "TANKA_BOT_MAX_STEPS",
    ):
        assert needle in message
    assert len(info.value.problems) == 14


def test_serve_needs_a_global_repository_only_when_some_channel_lacks_one(tmp_path: Path) -> None:
    own = {"channels": {"C0A": {"repo_url": "/srv/a"}, "C0B": {"repo_url": "/srv/b"}}}
    settings = load(tmp_path, own)
    assert not any("TANKA_BOT_REPO_URL" in p
                   for p in settings.missing_for_serve(socket_mode=False))  # fmt: skip
    shared = {"channels": {"C0A": {"repo_url": "/srv/a"}, "C0B": None}}
    settings = load(tmp_path, shared)
    assert any("TANKA_BOT_REPO_URL" in p
               for p in settings.missing_for_serve(socket_mode=False))  # fmt: skip


def test_prices_are_parsed_per_model_and_costs_shown_in_dollars() -> None:
    table = parse_prices("claude-opus-4-6=15/75, openrouter/gpt-4o=$2.5/10")
    assert table == {"claude-opus-4-6": Price(15, 75), "openrouter/gpt-4o": Price(2.5, 10)}
    assert turn_cost(table, "claude-opus-4-6", 100_000, 2_000) == pytest.approx(1.65)
    assert turn_cost(table, "unpriced", 100_000, 2_000) is None
    assert dollars(1.65) == "$1.65"
    assert dollars(0.000525) == "$0.0005"


@pytest.mark.parametrize("text", ["gpt-4o", "gpt-4o=2.5", "=1/2", "m=1/x", "m=-1/2"])
def test_bad_prices_stop_start_up_naming_the_entry(text: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings({"TANKA_BOT_PRICES": f"ok=1/2,{text}"})
    assert "TANKA_BOT_PRICES" in str(info.value)
    assert repr(text) in str(info.value)
