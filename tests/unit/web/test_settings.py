"""The web view's settings: off without TANKA_BOT_WEB_URL, and refused at start-up when half set
or when the cookie key is short."""

from __future__ import annotations

from bot.config import Settings
from bot.web.settings import web_config

BASE = {"TANKA_BOT_WEB_URL": "https://bot.example.com/", "TANKA_BOT_OIDC_CLIENT_ID": "1.2",
        "TANKA_BOT_OIDC_CLIENT_SECRET": "s", "TANKA_BOT_WEB_SECRET": "k" * 32}  # fmt: skip


def test_no_url_no_view() -> None:
    assert Settings().missing_for_web() == []
    assert web_config(Settings()) is None


def test_complete_settings() -> None:
    settings = Settings.model_validate(BASE)
    assert settings.missing_for_web() == []
    config = web_config(settings)
    assert config is not None
    assert config.redirect_uri == "https://bot.example.com/ui/callback"
    assert config.issuer == "https://slack.com"
    assert config.secure
    assert config.history_days == 90


def test_half_set_or_short_key_is_refused() -> None:
    problems = Settings(TANKA_BOT_WEB_URL="https://bot.example.com").missing_for_web()
    assert [p.split(":")[0] for p in problems] == [
        "TANKA_BOT_OIDC_CLIENT_ID", "TANKA_BOT_OIDC_CLIENT_SECRET", "TANKA_BOT_WEB_SECRET",
    ]  # fmt: skip
    short = Settings.model_validate({**BASE, "TANKA_BOT_WEB_SECRET": "short"}).missing_for_web()
    assert short == ["TANKA_BOT_WEB_SECRET: must be 32 bytes or more; make a longer key"]
