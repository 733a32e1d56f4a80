"""build_provider: settings pick the adapter, its key, model and base URL."""

from __future__ import annotations

import sys

import pytest

from bot.agent.messages import Message, ModelRequest
from bot.agent.providers.anthropic import AnthropicProvider
from bot.agent.providers.gemini import GeminiProvider
from bot.agent.providers.openai import OpenAIProvider
from bot.compose import build_provider
from bot.config import ConfigError, load_settings
from bot.errors import UserError
from fakes.anthropic_server import FakeAnthropic, anthropic_text
from fakes.gemini_server import FakeGemini, gemini_text


@pytest.mark.parametrize(
    ("provider", "variable"),
    [
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("gemini", "GEMINI_API_KEY"),
        ("openai", "OPENAI_API_KEY"),
    ],
)
def test_missing_key_names_the_variable(provider: str, variable: str) -> None:
    settings = load_settings({"TANKA_BOT_PROVIDER": provider})
    with pytest.raises(ConfigError, match=variable):
        build_provider(settings)


def test_anthropic_reaches_the_base_url_from_settings() -> None:
    with FakeAnthropic(api_key="k-1") as fake:
        settings = load_settings(
            {
                "ANTHROPIC_API_KEY": "k-1",
                "ANTHROPIC_BASE_URL": fake.url,
                "TANKA_BOT_MODEL": "claude-test-model",
            }
        )
        provider = build_provider(settings)
        assert isinstance(provider, AnthropicProvider)
        fake.script(anthropic_text("hello"))
        try:
            response = provider.complete(ModelRequest("s", [Message.user("hi")]))
        finally:
            provider.close()
    assert response.message.text == "hello"
    assert (provider.name, provider.model) == ("anthropic", "claude-test-model")
    assert fake.messages_requests()[0]["max_tokens"] == 8192


def test_gemini_reaches_the_base_url_from_settings() -> None:
    with FakeGemini(api_key="g-1") as fake:
        settings = load_settings(
            {
                "TANKA_BOT_PROVIDER": "gemini",
                "GOOGLE_API_KEY": "g-1",
                "TANKA_BOT_GEMINI_BASE_URL": fake.url,
            }
        )
        provider = build_provider(settings)
        assert isinstance(provider, GeminiProvider)
        fake.script(gemini_text("hello"))
        try:
            response = provider.complete(ModelRequest("s", [Message.user("hi")]))
        finally:
            provider.close()
    assert response.message.text == "hello"
    assert fake.requests[0].path == f"/v1beta/models/{settings.model_id}:generateContent"


def test_openai_defaults_to_max_completion_tokens() -> None:
    settings = load_settings({"TANKA_BOT_PROVIDER": "openai", "OPENAI_API_KEY": "o-1"})
    provider = build_provider(settings)
    assert isinstance(provider, OpenAIProvider)
    assert provider.token_param == "max_completion_tokens"
    provider.close()


def test_openai_without_the_extra_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # import openai now raises ImportError
    settings = load_settings({"TANKA_BOT_PROVIDER": "openai", "OPENAI_API_KEY": "o-1"})
    with pytest.raises(UserError, match=r"pip install 'tanka-bot\[openai\]'"):
        build_provider(settings)


def test_blank_key_is_refused() -> None:
    settings = load_settings({"ANTHROPIC_API_KEY": "   "})
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        build_provider(settings)
