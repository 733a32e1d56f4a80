"""A model provider that plays a script: the neutral-interface fake for agent loop tests.

Each step is a `ModelResponse`, an `AgentError` to raise, or a function of the request (to block,
inspect or misbehave). Every request is recorded so tests can assert what the model was sent.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bot.agent.errors import AgentError, ErrorKind
from bot.agent.messages import (
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    Text,
    ToolCall,
    Usage,
)

Step = ModelResponse | AgentError | Callable[[ModelRequest], ModelResponse]

_ids = itertools.count(1)


def call(name: str, call_id: str | None = None, /, **arguments: Any) -> ToolCall:
    """A tool call as the model would send it."""
    return ToolCall(call_id or f"call_{next(_ids)}", name, dict(arguments))


def reply(
    text: str, *, usage: Usage | None = None, stop: StopReason = StopReason.COMPLETE
) -> ModelResponse:
    """A final answer."""
    return ModelResponse(Message("assistant", (Text(text),)), usage or Usage(10, 5), stop)


def tools(*calls: ToolCall, text: str = "", usage: Usage | None = None) -> ModelResponse:
    """A response asking for one or more tool calls (several = parallel calls)."""
    parts: tuple[Text | ToolCall, ...] = ((Text(text),) if text else ()) + calls
    return ModelResponse(Message("assistant", parts), usage or Usage(10, 5), StopReason.TOOL_USE)


def overloaded(retry_after: float | None = None) -> AgentError:
    return AgentError(
        ErrorKind.RATE_LIMIT,
        "overloaded (529)",
        retryable=True,
        retry_after=retry_after,
        status=529,
    )


class ScriptedProvider:
    """Thread-safe: the loop calls `complete` from a worker thread."""

    def __init__(self, steps: Iterable[Step] = (), *, model: str = "scripted-1") -> None:
        self._steps = list(steps)
        self._model = model
        self._lock = threading.Lock()
        self.requests: list[ModelRequest] = []

    @property
    def name(self) -> str:
        return "scripted"

    @property
    def model(self) -> str:
        return self._model

    def add(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._steps)

    def complete(self, request: ModelRequest) -> ModelResponse:
        with self._lock:
            self.requests.append(request)
            if not self._steps:
                raise AgentError(ErrorKind.INVALID, "scripted provider: no response left")
            step = self._steps.pop(0)
        if isinstance(step, AgentError):
            raise step
        if isinstance(step, ModelResponse):
            return step
        return step(request)


def last_results(request: ModelRequest) -> Mapping[str, tuple[str, bool]]:
    """call id -> (content, is_error) of the tool results in the request's last message."""
    return {r.call_id: (r.content, r.is_error) for r in request.messages[-1].tool_results}
