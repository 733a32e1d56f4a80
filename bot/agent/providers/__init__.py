"""Model provider adapters behind the `LLMProvider` port (bot.compose.build_provider picks one).

    provider = AnthropicProvider(key, model, base_url=...)
    response = provider.complete(ModelRequest(system=..., messages=..., tools=...))

Each adapter makes exactly one HTTP attempt per call (SDK retries off) and raises only
`bot.agent.errors.AgentError`; the agent loop decides about retries from `kind`,
`retryable` and `retry_after`.
"""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_OUTPUT_TOKENS"]

# What a ModelRequest asks for by default: room for a long tool call (a whole file written)
# without letting one answer eat the turn's token budget.
DEFAULT_MAX_OUTPUT_TOKENS = 8192
