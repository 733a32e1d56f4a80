"""What the front ends build from Settings alike: the agent's budgets and provider, its MCP
tools, and the code host.

Nothing below the front ends reads the settings (an import-linter contract): the agent core and
the adapters take values, and this module turns the settings into them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from bot.agent.budget import Budgets
from bot.agent.messages import LLMProvider
from bot.agent.prompts import system_prompt
from bot.config import ConfigError, Settings
from bot.publish.pipeline import PullRequestHost
from tools.registry import ToolRegistry

if TYPE_CHECKING:
    from pydantic import SecretStr

    from bot.agent.agent import Agent
    from bot.github.auth import Clock, TokenSource
    from bot.github.code_host import GitHubCodeHost
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


def tool_catalog() -> ToolRegistry:
    """Every tool the agent may call (tools.catalog), loaded by the processes that build an
    agent alone: the serving process of a bot whose turns run in a work process (bot.
    work_process) never loads a tool, nor the Tanka checks and linter they bring."""
    from tools.catalog import default_registry  # noqa: PLC0415 - the tools load only where an agent is built, not in a split bot's serving process

    return default_registry()


def build_agent(settings: Settings, provider: LLMProvider, hub: McpHub | None) -> Agent:
    """The Slack service's agent: `provider`, the tool catalog with the hub's tools, the system
    prompt and the settings' budgets."""
    from bot.agent.agent import Agent  # noqa: PLC0415 - the agent loads only where turns run, not in a split bot's serving process

    registry = with_mcp_tools(tool_catalog(), hub)
    return Agent(provider, registry, system_prompt=system_prompt(),
                 budgets=budgets_from_settings(settings))  # fmt: skip


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
        from bot.mcp.tools import McpTools  # noqa: PLC0415 - the MCP SDK loads only when servers are configured

        registry.add_source(McpTools(hub))
    return registry


class ClosableHost(PullRequestHost, Protocol):
    """A code host a terminal command opens and closes itself (GitHubCodeHost)."""

    def close(self) -> None: ...


def build_code_host(
    settings: Settings, *, clock: Clock | None = None, write_interval: float | None = 1.0
) -> GitHubCodeHost | None:
    """The code host the settings describe, or None when no GitHub credentials are set.

    A GitHub App (GITHUB_APP_ID) wins over GITHUB_TOKEN when both are set. Tests pass
    write_interval=None to skip PyGithub's pause between writes.
    """
    if settings.github_token is None and settings.github_app_id is None:
        return None
    from bot.github import auth, code_host  # noqa: PLC0415 - PyGithub: 0.15 s of imports, for a configured GitHub only

    owner, name = code_host.resolve_repo(settings.github_repo, settings.repo_url)
    tokens: TokenSource
    if settings.github_app_id is None:
        token = settings.github_token.get_secret_value() if settings.github_token else ""
        tokens = auth.StaticToken(token)
    else:
        key_text = settings.github_app_private_key
        key = auth.read_private_key(
            key_text.get_secret_value() if key_text else None,
            settings.github_app_private_key_path,
        )
        credentials = auth.AppCredentials(
            settings.github_app_id, key, settings.github_app_installation_id
        )
        tokens = auth.InstallationTokens(
            credentials, repo=(owner, name), base_url=settings.github_api_url,
            clock=clock or auth.utc_now,
        )  # fmt: skip
    return code_host.GitHubCodeHost(
        owner=owner,
        name=name,
        tokens=tokens,
        api_url=settings.github_api_url,
        write_interval=write_interval,
    )


@dataclass
class CommandDeps:
    """What a terminal command (`chat`, `eval`) takes from the outside world; tests swap in a
    scripted provider, a registry, a code host and streams."""

    provider_factory: Callable[[Settings], LLMProvider] = build_provider
    registry_factory: Callable[[], ToolRegistry] = tool_catalog
    code_host_factory: Callable[[Settings], ClosableHost | None] = build_code_host  # chat's PRs
    environ: Mapping[str, str] | None = None  # None: the process environment
    stdin: TextIO | None = None  # None: sys.stdin at call time
    stdout: TextIO | None = None  # None: sys.stdout at call time
    stderr: TextIO | None = None  # None: sys.stderr at call time (eval's progress line)
    cwd: Path | None = None  # None: the process's working directory
