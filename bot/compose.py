"""The agent's parts built from Settings: composition shared by the front ends.

The agent core (bot/agent/) never reads the settings; `tanka-bot chat` today, and the Slack app
later, build its budgets and provider here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.agent.budget import Budgets
from bot.agent.messages import LLMProvider, ModelRequest, ModelResponse
from bot.config import ConfigError, Settings
from tools.registry import ToolRegistry

if TYPE_CHECKING:
    from pydantic import SecretStr

    from bot.mcp.hub import CallObserver, McpHub


def budgets_from_settings(settings: Settings) -> Budgets:
    """TANKA_BOT_MAX_STEPS, TANKA_BOT_MAX_TOKENS and TANKA_BOT_TURN_TIMEOUT as a turn's budgets."""
    return Budgets(
        max_steps=settings.max_steps,
        max_tokens=settings.max_tokens,
        turn_timeout=settings.turn_timeout,
    )


def build_provider(settings: Settings) -> LLMProvider:
    """The provider chosen by TANKA_BOT_PROVIDER, with its key, model and base URL."""
    settings.require(settings.missing_for_provider())
    model = settings.model_id
    if settings.provider == "anthropic":
        from bot.agent.providers.anthropic import AnthropicProvider  # noqa: PLC0415 - each provider's SDK loads only when it is the configured one

        key = _secret(settings.anthropic_api_key, "ANTHROPIC_API_KEY")
        return AnthropicProvider(key, model, base_url=settings.anthropic_base_url)
    if settings.provider == "gemini":
        from bot.agent.providers.gemini import GeminiProvider  # noqa: PLC0415 - each provider's SDK loads only when it is the configured one

        key = _secret(settings.gemini_key, "GEMINI_API_KEY")
        return GeminiProvider(key, model, base_url=settings.gemini_base_url)
    from bot.agent.providers.openai import OpenAIProvider  # noqa: PLC0415 - each provider's SDK loads only when it is the configured one

    key = _secret(settings.openai_api_key, "OPENAI_API_KEY")
    return OpenAIProvider(key, model, base_url=settings.openai_base_url)


class NoModelHere:
    """The provider of a serving process whose turns all run in its work process
    (bot.work_process): it never calls the model, so no model SDK is loaded (Anthropic's alone
    is 45 MB of its memory). The settings are still checked, so a missing key stops it at start."""

    def __init__(self, settings: Settings) -> None:
        settings.require(settings.missing_for_provider())
        self._name, self._model = settings.provider, settings.model_id

    @property
    def name(self) -> str:
        return self._name

    @property
    def model(self) -> str:
        return self._model

    def complete(self, request: ModelRequest) -> ModelResponse:
        raise RuntimeError("the serving process runs no turns: its work process calls the model")


def _secret(value: SecretStr | None, variable: str) -> str:
    text = value.get_secret_value().strip() if value is not None else ""
    if not text:
        raise ConfigError([f"{variable}: is empty; set the API key"])
    return text


def mcp_hub(settings: Settings, *, on_call: CallObserver | None = None) -> McpHub | None:
    """TANKA_BOT_MCP_CONFIG's servers, started and listed; None when the setting is unset.

    A server that cannot start does not stop the bot: its tools are listed again later, and
    /readyz names it as degraded.
    """
    if settings.mcp is None:
        return None
    from bot.mcp.hub import McpHub  # noqa: PLC0415 - the SDK loads only when servers are configured

    hub = McpHub(settings.mcp, on_call=on_call)
    hub.start()
    return hub


def with_mcp_tools(registry: ToolRegistry, hub: McpHub | None) -> ToolRegistry:
    """`registry` offering the hub's tools too (`mcp__<server>__<tool>`), as listed each turn."""
    if hub is not None:
        from bot.mcp.tools import McpTools  # noqa: PLC0415 - each provider's SDK loads only when it is the configured one

        registry.add_source(McpTools(hub))
    return registry
