from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings


def test_defaults_match_the_contract() -> None:
    s = load_settings({})
    assert s.provider == "anthropic"
    assert s.model_id == "claude-opus-4-6"
    assert s.base_branch == "main"
    assert s.approve_emoji == "white_check_mark"
    assert s.cancel_emoji == "x"
    assert s.approvers == ()
    assert s.allow_self_approval is True
    assert s.protected_paths == (".github/**", ".git/**", "**/.gitattributes")
    assert (s.max_steps, s.max_tokens, s.turn_timeout) == (40, 400_000, 600.0)
    assert s.session_ttl == 86_400.0
    assert s.workdir == Path("~/.cache/tanka-bot").expanduser()
    assert s.slack_api_url == "https://slack.com/api/"
    assert s.github_api_url == "https://api.github.com"


def test_every_problem_is_listed_at_once_with_its_variable() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(
            {
                "TANKA_BOT_MAX_STEPS": "lots",
                "TANKA_BOT_PROVIDER": "llama",
                "TANKA_BOT_APPROVERS": "U123ABC, bob",
                "TANKA_BOT_TURN_TIMEOUT": "-1",
            }
        )
    text = str(info.value)
    assert len(info.value.problems) == 4
    for name in ("TANKA_BOT_MAX_STEPS", "TANKA_BOT_PROVIDER", "TANKA_BOT_APPROVERS"):
        assert name in text
    assert "'lots'" in text
    assert "bob" in text


def test_lists_are_comma_separated() -> None:
    s = load_settings(
        {"TANKA_BOT_APPROVERS": "U01ABC, S02DEF ,", "TANKA_BOT_PROTECTED_PATHS": "a/**,b"}
    )
    assert s.approvers == ("U01ABC", "S02DEF")
    assert s.protected_paths == ("a/**", "b")


def test_secrets_never_show_in_repr_or_errors() -> None:
    s = load_settings({"GITHUB_TOKEN": "dummy-token-value", "ANTHROPIC_API_KEY": "dummy-key"})
    assert "dummy-token-value" not in repr(s)
    assert "dummy-key" not in str(s.model_dump())
    assert s.github_token is not None
    assert s.github_token.get_secret_value() == "dummy-token-value"


def test_yaml_file_sets_keys_and_the_environment_wins(tmp_path: Path) -> None:
    cfg = tmp_path / "tanka-bot.yaml"
    cfg.write_text("TANKA_BOT_MAX_STEPS: 7\ntanka_bot_base_branch: trunk\n")
    s = load_settings({"TANKA_BOT_CONFIG": str(cfg), "TANKA_BOT_MAX_STEPS": "9"})
    assert s.max_steps == 9
    assert s.base_branch == "trunk"


@pytest.mark.parametrize(
    ("content", "needle"),
    [("- a\n- b\n", "must hold a mapping"), ("x: [", "not valid YAML"), ("NOPE: 1", "NOPE")],
)
def test_bad_yaml_files_are_reported(tmp_path: Path, content: str, needle: str) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(content)
    with pytest.raises(ConfigError, match="TANKA_BOT_CONFIG") as info:
        load_settings({"TANKA_BOT_CONFIG": str(cfg)})
    assert needle in str(info.value)


def test_missing_config_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings({"TANKA_BOT_CONFIG": str(tmp_path / "absent.yaml")})


def test_serve_requirements_depend_on_mode() -> None:
    s = load_settings({})
    http = s.missing_for_serve(socket_mode=False)
    joined = "\n".join(http)
    for name in (
        "ANTHROPIC_API_KEY",
        "SLACK_BOT_TOKEN",
        "SLACK_SIGNING_SECRET",
        "TANKA_BOT_REPO_URL",
        "GITHUB_TOKEN",
    ):
        assert name in joined
    socket = "\n".join(s.missing_for_serve(socket_mode=True))
    assert "SLACK_APP_TOKEN" in socket
    assert "SLACK_SIGNING_SECRET" not in socket


def test_gemini_accepts_either_key() -> None:
    s = load_settings({"TANKA_BOT_PROVIDER": "gemini", "GOOGLE_API_KEY": "k"})
    assert s.missing_for_provider() == []
    assert s.model_id == "gemini-2.0-flash"


def test_github_app_key_forms_are_exclusive() -> None:
    with pytest.raises(ConfigError, match="only one of"):
        load_settings({"GITHUB_APP_PRIVATE_KEY": "pem", "GITHUB_APP_PRIVATE_KEY_PATH": "/k.pem"})


def test_invalid_secret_values_are_not_echoed() -> None:
    from bot.config import _describe

    secret = {"loc": ("REDIS_URL",), "msg": "bad", "input": "redis://:hunter2@host"}
    plain = {"loc": ("TANKA_BOT_MAX_STEPS",), "msg": "bad", "input": "lots"}
    assert "hunter2" not in _describe(secret)
    assert "'lots'" in _describe(plain)


def test_a_relative_workdir_becomes_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git and the render engine run with other working directories (the checkout), so a
    # relative workdir would put caches and base trees inside the user's checkout.
    monkeypatch.chdir(tmp_path)
    s = load_settings({"TANKA_BOT_WORKDIR": "wd/../state"})
    assert s.workdir == tmp_path / "state"
    assert s.workdir.is_absolute()
