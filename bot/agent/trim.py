"""Keep a long thread's history inside the model's window.

Tool outputs are most of a long conversation and the least needed later, so they go first:
oldest first, each replaced by a short note (the call and its result stay paired, which every
provider requires). Only if that is not enough are the oldest whole exchanges dropped, always
from a user message that starts an exchange, so no tool call is left without its result.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.agent.messages import Message, Text, ToolCall, ToolResult

DROPPED = "[output dropped to keep the conversation within the model's context window]"
CHARS_PER_TOKEN = 4  # a conservative average for English, YAML and Jsonnet


def estimate_tokens(messages: Sequence[Message]) -> int:
    chars = 0
    for message in messages:
        for part in message.parts:
            if isinstance(part, Text):
                chars += len(part.text)
            elif isinstance(part, ToolCall):
                chars += len(part.name) + len(str(part.arguments))
            elif isinstance(part, ToolResult):
                chars += len(part.content)
    return chars // CHARS_PER_TOKEN


def _without_outputs(message: Message) -> Message:
    parts = tuple(
        ToolResult(p.call_id, p.name, DROPPED, p.is_error)
        if isinstance(p, ToolResult) and p.content != DROPPED
        else p
        for p in message.parts
    )
    return Message(message.role, parts)


def _starts_exchange(message: Message) -> bool:
    return message.role == "user" and not message.tool_results


def trim_history(history: Sequence[Message], max_tokens: int) -> tuple[Message, ...]:
    """`history` shortened until its estimate is under `max_tokens` (or nothing is left to cut)."""
    messages = list(history)
    index = 0
    while estimate_tokens(messages) > max_tokens and index < len(messages):
        if messages[index].tool_results:
            messages[index] = _without_outputs(messages[index])
        index += 1
    while estimate_tokens(messages) > max_tokens and len(messages) > 1:
        # Drop the oldest exchange: up to (not including) the next user message that starts one.
        cut = next((i for i in range(1, len(messages)) if _starts_exchange(messages[i])), None)
        if cut is None:
            break
        messages = messages[cut:]
    return tuple(messages)
