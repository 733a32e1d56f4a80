"""One way to script "the model" for a scenario, whichever fake API server plays it.

A scenario describes the model's side as steps (tool calls, then a final answer); `AnthropicModel`
and `GeminiModel` turn each step into that API's wire reply and read back, from the requests the
real SDK sent, what the bot fed to the model: the tool results of each step, the tool specs.

    model = AnthropicModel(fake)
    model.calls(Call("c1", "file_read", {"path": "lib/app.libsonnet"}))
    model.answer("Done.")
    ...  # run the chat
    model.results(1)  # [Seen(id="c1", name="file_read", content="[lib/app...", is_error=False)]

Request 0 carries the prompt; request k (k >= 1) carries the results of the calls of step k.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from fakes.anthropic_server import (
    FakeAnthropic,
    anthropic_message,
    anthropic_usage,
    text_block,
    tool_use_block,
)
from fakes.gemini_server import (
    FakeGemini,
    gemini_call_part,
    gemini_response,
    gemini_text,
    gemini_text_part,
    gemini_usage,
)

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call the model makes: `id` is its call id (Gemini may be told to omit it)."""

    id: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Seen:
    """A tool result as the model received it on the wire."""

    id: str | None  # None when the API carried no id (Gemini calls without ids)
    name: str | None  # None when the API does not name results (Anthropic: found via the call)
    content: str
    is_error: bool


class ScriptedModel(Protocol):
    provider: str  # TANKA_BOT_PROVIDER value

    @property
    def url(self) -> str: ...

    def env(self, key: str) -> dict[str, str]: ...

    def calls(self, *calls: Call, text: str | None = None) -> None: ...

    def answer(self, text: str, *, input_tokens: int = 10, output_tokens: int = 5) -> None: ...

    def request_count(self) -> int: ...

    def results(self, request: int) -> list[Seen]: ...

    def tool_names(self, request: int = 0) -> list[str]: ...

    def pending(self) -> int: ...


class AnthropicModel:
    provider = "anthropic"

    def __init__(self, fake: FakeAnthropic) -> None:
        self.fake = fake

    @property
    def url(self) -> str:
        return self.fake.url

    def env(self, key: str) -> dict[str, str]:
        return {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": self.fake.url}

    def calls(self, *calls: Call, text: str | None = None) -> None:
        blocks = [text_block(text)] if text else []
        blocks += [tool_use_block(c.id, c.name, c.args) for c in calls]
        self.fake.script(anthropic_message(*blocks))

    def answer(self, text: str, *, input_tokens: int = 10, output_tokens: int = 5) -> None:
        usage = anthropic_usage(input=input_tokens, output=output_tokens)
        self.fake.script(anthropic_message(text_block(text), usage=usage))

    def bodies(self) -> list[JSON]:
        return self.fake.messages_requests()

    def request_count(self) -> int:
        return len(self.bodies())

    def results(self, request: int) -> list[Seen]:
        messages = self.bodies()[request]["messages"]
        names = {b["id"]: b["name"] for b in messages[-2]["content"] if b.get("type") == "tool_use"}
        return [
            Seen(b["tool_use_id"], names.get(b["tool_use_id"]), _text(b), bool(b.get("is_error")))
            for b in messages[-1]["content"]
            if b.get("type") == "tool_result"
        ]

    def tool_names(self, request: int = 0) -> list[str]:
        return [t["name"] for t in self.bodies()[request].get("tools", [])]

    def pending(self) -> int:
        return self.fake.pending


def _text(block: JSON) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content)


class GeminiModel:
    """Gemini replies; each step's first call carries a thought signature the fake checks.

    `ids=False` sends calls without ids, as Gemini often does: the bot must then match results
    by order and name (and send them back without ids).
    """

    provider = "gemini"

    def __init__(self, fake: FakeGemini, *, ids: bool = True) -> None:
        self.fake = fake
        self.ids = ids
        self.signatures: list[bytes] = []

    @property
    def url(self) -> str:
        return self.fake.url

    def env(self, key: str) -> dict[str, str]:
        return {"GEMINI_API_KEY": key, "TANKA_BOT_GEMINI_BASE_URL": self.fake.url}

    def calls(self, *calls: Call, text: str | None = None) -> None:
        # Bytes outside base64's URL-safe alphabet's overlap, so a re-encoding would show.
        signature = bytes([0xFB, 0xEF, len(self.signatures)]) + calls[0].id.encode()
        self.signatures.append(signature)
        parts = [gemini_text_part(text)] if text else []
        parts += [
            gemini_call_part(
                c.name,
                c.args,
                id=c.id if self.ids else None,
                signature=signature if i == 0 else None,
            )
            for i, c in enumerate(calls)
        ]
        self.fake.script(gemini_response(*parts))

    def answer(self, text: str, *, input_tokens: int = 10, output_tokens: int = 5) -> None:
        usage = gemini_usage(prompt=input_tokens, output=output_tokens)
        self.fake.script(gemini_text(text, usage=usage))

    def bodies(self) -> list[JSON]:
        return self.fake.generate_requests()

    def request_count(self) -> int:
        return len(self.bodies())

    def results(self, request: int) -> list[Seen]:
        parts = self.bodies()[request]["contents"][-1]["parts"]
        seen = []
        for part in parts:
            response = part.get("functionResponse")
            if response is None:
                continue
            payload = response.get("response", {})
            is_error = "error" in payload
            content = payload["error"] if is_error else payload.get("output", "")
            seen.append(Seen(response.get("id"), response.get("name"), content, is_error))
        return seen

    def tool_names(self, request: int = 0) -> list[str]:
        tools = self.bodies()[request].get("tools", [])
        return [d["name"] for t in tools for d in t.get("functionDeclarations", [])]

    def pending(self) -> int:
        return self.fake.pending

    def echoed_signatures(self, request: int) -> list[bytes]:
        """Thought signatures on the model turns of a request, decoded, in order."""
        out = []
        for content in self.bodies()[request]["contents"]:
            if content.get("role") != "model":
                continue
            for part in content.get("parts", []):
                if "thoughtSignature" in part:
                    out.append(_b64decode(part["thoughtSignature"]))
        return out


def _b64decode(text: str) -> bytes:
    padded = text + "=" * (-len(text) % 4)
    return base64.b64decode(padded.replace("-", "+").replace("_", "/"))


def results_by_id(seen: Sequence[Seen]) -> dict[str | None, Seen]:
    return {s.id: s for s in seen}
