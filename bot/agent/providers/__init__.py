"""Model provider adapters behind the `LLMProvider` port, and the factory that picks one.

    provider = build_provider(settings)       # ConfigError when the key is missing
    response = provider.complete(ModelRequest(system=..., messages=..., tools=...))

Each adapter makes exactly one HTTP attempt per call (SDK retries off) and raises only
`bot.agent.errors.AgentError`; the agent loop decides about retries from `kind`,
`retryable` and `retry_after`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.agent.messages import LLMProvider
from bot.config import ConfigError, Settings

if TYPE_CHECKING:
    from pydantic import SecretStr

__all__ = ["DEFAULT_MAX_OUTPUT_TOKENS", "build_provider"]

# What a ModelRequest asks for by default: room for a long tool call (a whole file written)
# without letting one answer eat the turn's token budget.
DEFAULT_MAX_OUTPUT_TOKENS = 8192


def build_provider(settings: Settings) -> LLMProvider:
    """The provider chosen by TANKA_BOT_PROVIDER, with its key, model and base URL."""
    settings.require(settings.missing_for_provider())
    model = settings.model_id
    if settings.provider == "anthropic":
        from bot.agent.providers.anthropic import AnthropicProvider

        key = _secret(settings.anthropic_api_key, "ANTHROPIC_API_KEY")
        return AnthropicProvider(key, model, base_url=settings.anthropic_base_url)
    if settings.provider == "gemini":
        from bot.agent.providers.gemini import GeminiProvider

        key = _secret(settings.gemini_key, "GEMINI_API_KEY")
        return GeminiProvider(key, model, base_url=settings.gemini_base_url)
    from bot.agent.providers.openai import OpenAIProvider

    key = _secret(settings.openai_api_key, "OPENAI_API_KEY")
    return OpenAIProvider(key, model, base_url=settings.openai_base_url)


def _secret(value: SecretStr | None, variable: str) -> str:
    text = value.get_secret_value().strip() if value is not None else ""
    if not text:
        raise ConfigError([f"{variable}: is empty; set the API key"])
    return text
