"""The provider-neutral conversation model.

A conversation is a sequence of `Message`s, each a tuple of parts: text, tool calls (assistant)
or tool results (user). Provider adapters translate it to and from their wire formats; nothing
else in the bot knows a wire format. Values are frozen so a history can be shared safely.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal, Protocol

from tools.registry import ToolSpec

__all__ = [
    "LLMProvider",
    "Message",
    "ModelRequest",
    "ModelResponse",
    "Part",
    "Role",
    "StopReason",
    "Text",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Usage",
    "masked",
]

Role = Literal["user", "assistant"]


class StopReason(StrEnum):
    COMPLETE = "complete"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    REFUSAL = "refusal"


@dataclass(frozen=True, slots=True)
class Text:
    text: str
    # Gemini may attach a thought signature to a text part; echoing it keeps reasoning context.
    signature: bytes | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: Mapping[str, Any]
    # Gemini requires the signature of a function call part to come back unchanged.
    signature: bytes | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    call_id: str
    name: str  # Gemini matches function responses by name as well as id
    content: str
    is_error: bool = False


Part = Text | ToolCall | ToolResult


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    parts: tuple[Part, ...]

    @classmethod
    def user(cls, text: str) -> Message:
        return cls("user", (Text(text),))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, Text))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolResult))


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts, normalised so `input_tokens` excludes cache reads and writes."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def total(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


@dataclass(frozen=True, slots=True)
class ModelRequest:
    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    max_output_tokens: int = 8192
    timeout: float = 600.0  # seconds for this one call, set by the loop from the turn budget


@dataclass(frozen=True, slots=True)
class ModelResponse:
    message: Message
    usage: Usage
    stop_reason: StopReason
    model: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


class LLMProvider(Protocol):
    """One model call. Implementations raise `bot.agent.errors.AgentError`, never SDK errors,
    and make exactly one HTTP attempt: retries belong to the loop."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    def complete(self, request: ModelRequest) -> ModelResponse: ...


def masked(messages: Sequence[Message], mask: Callable[[str], str]) -> tuple[Message, ...]:
    """`messages` with `mask` applied to every text and tool result: what the model is sent.
    Unchanged messages are the same objects, so a history without Secret values costs no copy."""
    return tuple(_masked_message(m, mask) for m in messages)


def _masked_message(message: Message, mask: Callable[[str], str]) -> Message:
    parts = tuple(_masked_part(p, mask) for p in message.parts)
    if all(new is old for new, old in zip(parts, message.parts, strict=True)):
        return message
    return Message(message.role, parts)


def _masked_part(part: Part, mask: Callable[[str], str]) -> Part:
    if isinstance(part, Text):
        text = mask(part.text)
        return part if text == part.text else replace(part, text=text)
    if isinstance(part, ToolResult):
        content = mask(part.content)
        return part if content == part.content else replace(part, content=content)
    return part  # the model's own calls: it wrote them
