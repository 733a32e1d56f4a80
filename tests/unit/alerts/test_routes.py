"""`alert_routes` and TANKA_BOT_ALERTS_TOKEN: validated at start-up with the other settings."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.config import ConfigError, Settings, load_settings
from bot.policy.alert_routes import route_for

ROUTE = {
    "match": {"alertname": "KubeContainerOOMKilled", "namespace": "prod|staging"},
    "channel": "C0DEPLOY",
    "instructions": "If a memory change is warranted, propose it; otherwise say why not.",
}


def load(tmp_path: Path, data: object, **env: str) -> Settings:
    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_settings({"TANKA_BOT_CONFIG": str(path), **env})


def test_routes_match_anchored_and_the_first_match_wins(tmp_path: Path) -> None:
    catch_all = {"match": {"alertname": ".+"}, "channel": "C0OPS", "instructions": "look",
                 "max_sessions_per_hour": 2, "max_notes_per_hour": 3, "name": "rest"}  # fmt: skip
    routes = load(tmp_path, {"alert_routes": [ROUTE, catch_all]}).teams.alert_routes
    first, rest = routes
    assert (first.name, first.requester, first.max_sessions_per_hour) == ("0", "alert:0", 6)
    assert (rest.requester, rest.max_sessions_per_hour) == ("alert:rest", 2)
    assert (first.max_notes_per_hour, rest.max_notes_per_hour) == (20, 3)
    oom = {"alertname": "KubeContainerOOMKilled", "namespace": "staging"}
    assert route_for(routes, oom) is first
    # anchored: "prod|staging" is ^(?:prod|staging)$, so neither prefix nor suffix matches
    assert route_for(routes, {**oom, "namespace": "prod-eu"}) is rest
    assert route_for(routes, {**oom, "namespace": "xprod"}) is rest
    assert route_for(routes, {"alertname": "KubeContainerOOMKilledX", "namespace": "prod"}) is rest
    # a missing label is the empty string; `.+` does not match it
    assert route_for(routes, {"namespace": "prod"}) is None


def test_bad_routes_stop_start_up_naming_each_route(tmp_path: Path) -> None:
    bad = {
        "channels": {"C0DEPLOY": None},
        "alert_routes": [
            {**ROUTE, "match": {"alertname": "(unclosed"}},
            {**ROUTE, "channel": "C0ELSEWHERE"},
            {**ROUTE, "channel": "#deploy", "max_sessions_per_hour": 0, "colour": "red"},
            {"match": {"alertname": "x"}, "channel": "C0DEPLOY"},
            {**ROUTE, "match": {"alertname": "(?P<n>x)\\1"}},  # backreferences: not RE2
            {**ROUTE, "max_notes_per_hour": "many"},
        ],
    }
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, bad)
    text = str(caught.value)
    assert "alert_routes[0].match.alertname: '(unclosed' is not a valid RE2 expression" in text
    assert "alert_routes[1].channel: C0ELSEWHERE is not listed under channels" in text
    assert "alert_routes[2].channel: must be a Slack channel id" in text
    assert "alert_routes[2].max_sessions_per_hour: must be a whole number >= 1" in text
    assert "alert_routes[2].colour: unknown route field" in text
    assert "alert_routes[3].instructions: must say what the agent should do" in text
    assert "alert_routes[4].match.alertname" in text
    assert "alert_routes[5].max_notes_per_hour: must be a whole number >= 1 (got 'many')" in text


def test_a_route_list_of_the_wrong_shape_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="alert_routes: must be a list of routes"):
        load(tmp_path, {"alert_routes": {"match": {}}})


def test_the_alerts_token_is_a_secret_and_may_come_from_a_file(tmp_path: Path) -> None:
    assert load_settings({}).alerts_token is None
    settings = load_settings({"TANKA_BOT_ALERTS_TOKEN": "am-t0ken"})
    assert settings.alerts_token is not None
    assert settings.alerts_token.get_secret_value() == "am-t0ken"
    assert "am-t0ken" not in repr(settings)
    token = tmp_path / "token"
    token.write_text("from-file\n")
    settings = load_settings({"TANKA_BOT_ALERTS_TOKEN_FILE": str(token)})
    assert settings.alerts_token is not None
    assert settings.alerts_token.get_secret_value() == "from-file"
    with pytest.raises(ConfigError, match="TANKA_BOT_ALERTS_TOKEN and TANKA_BOT_ALERTS_TOKEN_FILE"):
        load_settings({"TANKA_BOT_ALERTS_TOKEN": "x", "TANKA_BOT_ALERTS_TOKEN_FILE": str(token)})
