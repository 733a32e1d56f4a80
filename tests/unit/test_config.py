from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, _describe, load_settings


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


SECRETS = (
    "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "GITHUB_TOKEN",
    "GITHUB_APP_PRIVATE_KEY", "GITHUB_WEBHOOK_SECRET", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
    "GOOGLE_API_KEY", "OPENAI_API_KEY", "REDIS_URL",
)  # fmt: skip


def test_every_secret_can_come_from_a_file_named_by_name_file(tmp_path: Path) -> None:
    """As a Kubernetes Secret mounted as files gives them: the environment holds only paths."""
    env = {}
    for name in SECRETS:
        (tmp_path / name).write_text(f"  value-of-{name.lower()}-from-a-file\n")
        env[f"{name}_FILE"] = str(tmp_path / name)
    settings = load_settings(env)
    fields = {
        "SLACK_BOT_TOKEN": settings.slack_bot_token, "SLACK_SIGNING_SECRET":
        settings.slack_signing_secret, "SLACK_APP_TOKEN": settings.slack_app_token,
        "GITHUB_TOKEN": settings.github_token, "GITHUB_APP_PRIVATE_KEY":
        settings.github_app_private_key, "GITHUB_WEBHOOK_SECRET": settings.github_webhook_secret,
        "ANTHROPIC_API_KEY": settings.anthropic_api_key, "GEMINI_API_KEY":
        settings.gemini_api_key, "GOOGLE_API_KEY": settings.google_api_key,
        "OPENAI_API_KEY": settings.openai_api_key, "REDIS_URL": settings.redis_url,
    }  # fmt: skip
    for name, value in fields.items():
        assert value is not None, name
        assert value.get_secret_value() == f"value-of-{name.lower()}-from-a-file"


def test_a_multi_line_key_file_keeps_its_lines(tmp_path: Path) -> None:
    pem = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIB\nOgIB\n-----END RSA PRIVATE KEY-----"
    (tmp_path / "key.pem").write_text(pem + "\n")
    settings = load_settings({"GITHUB_APP_PRIVATE_KEY_FILE": str(tmp_path / "key.pem")})
    assert settings.github_app_private_key is not None
    assert settings.github_app_private_key.get_secret_value() == pem


def test_secret_file_problems_are_listed_without_the_secret(tmp_path: Path) -> None:
    (tmp_path / "token").write_text("xoxb-" + "in-the-file")
    (tmp_path / "empty").write_text("\n  \n")
    (tmp_path / "binary").write_bytes(b"\xff\xfe\x00")
    env = {
        "SLACK_BOT_TOKEN": "xoxb-" + "in-the-environment",
        "SLACK_BOT_TOKEN_FILE": str(tmp_path / "token"),
        "GITHUB_TOKEN_FILE": str(tmp_path / "missing"),
        "OPENAI_API_KEY_FILE": str(tmp_path / "empty"),
        "REDIS_URL_FILE": str(tmp_path / "binary"),
        "ANTHROPIC_API_KEY_FILE": str(tmp_path),  # a folder
    }
    with pytest.raises(ConfigError) as caught:
        load_settings(env)
    problems = caught.value.problems
    assert problems == [
        f"ANTHROPIC_API_KEY_FILE: cannot read {tmp_path}: Is a directory; mount the secret "
        "there or fix the path",
        f"GITHUB_TOKEN_FILE: cannot read {tmp_path / 'missing'}: No such file or directory; "
        "mount the secret there or fix the path",
        f"OPENAI_API_KEY_FILE: {tmp_path / 'empty'} is empty; put the secret in it",
        f"REDIS_URL_FILE: {tmp_path / 'binary'} is not UTF-8 text; put the secret in it as text",
        "SLACK_BOT_TOKEN and SLACK_BOT_TOKEN_FILE are both set; keep only one (the file keeps "
        "the secret out of the environment)",
    ]
    assert "xoxb" not in str(caught.value)


def test_an_empty_name_file_is_unset_and_the_variable_still_works() -> None:
    settings = load_settings({"GITHUB_TOKEN": "ghp_x", "GITHUB_TOKEN_FILE": ""})
    assert settings.github_token is not None
    assert settings.github_token.get_secret_value() == "ghp_x"
