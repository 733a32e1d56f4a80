"""Anthropic Messages API adapter (the `anthropic` SDK, one HTTP attempt per call).

Why streaming: a non-streaming `messages.create` makes the SDK refuse large `max_tokens`
client-side (it wants streaming for calls that may exceed ten minutes) unless every call passes
an explicit timeout, and a silent connection that waits minutes for a whole answer is what idle
proxies cut. Streaming keeps bytes flowing, works for any `max_output_tokens`, and the SDK's
`get_final_message` still hands us one complete message. The price is in-stream `error` events
(e.g. overloaded_error after a 200), which the SDK raises as a bare `APIStatusError` with status
200; `ErrorMapper` classifies those by their error type string. `request.timeout` is the HTTP
timeout, so it bounds each wait for bytes; the loop's turn budget bounds the whole call.
"""

from __future__ import annotations

import logging
from typing import Any

import anthropic
import httpx2

from bot.agent.errors import AgentError
from bot.agent.messages import ModelRequest, ModelResponse
from bot.agent.providers import anthropic_wire as wire
from bot.agent.providers.errors import ErrorMapper

log = logging.getLogger(__name__)


class AnthropicProvider:
    """`LLMProvider` for Claude models.

    `strict_responses` turns on the SDK's strict response validation; tests use it so the fake
    server cannot drift from the real response schema.
    """

    def __init__(
        self,
        api_key: str,
        model: str,
        *,
        base_url: str | None = None,
        strict_responses: bool = False,
    ) -> None:
        self._model = model
        self._errors = ErrorMapper(
            "Anthropic", model, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", secret=api_key
        )
        self._client = anthropic.Anthropic(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,  # the agent loop owns retries
            _strict_response_validation=strict_responses,
        )

    @property
    def name(self) -> str:
        return "anthropic"

    @property
    def model(self) -> str:
        return self._model

    def close(self) -> None:
        self._client.close()

    def complete(self, request: ModelRequest) -> ModelResponse:
        params = self._params(request)
        final = self._call(params, request.timeout)
        message = wire.parse_content(final.content or [])
        stop = wire.parse_stop_reason(final.stop_reason, message)
        extra: dict[str, Any] = {"id": final.id}
        details = getattr(final, "stop_details", None)
        if details is not None:
            extra["stop_details"] = details.model_dump(exclude_none=True)
        return ModelResponse(
            message=message,
            usage=wire.parse_usage(final.usage),
            stop_reason=stop,
            model=final.model or self._model,
            extra=extra,
        )

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self._model,
            "max_tokens": request.max_output_tokens,
            "messages": wire.message_params(request.messages),
        }
        system = wire.system_blocks(request.system)
        if system:
            params["system"] = system
        tools = wire.tool_params(request.tools)
        if tools:
            params["tools"] = tools
        return params

    def _call(self, params: dict[str, Any], timeout: float) -> Any:
        try:
            with self._client.messages.stream(**params, timeout=timeout) as stream:
                return stream.get_final_message()
        except anthropic.APIStatusError as exc:
            raise self._status_error(exc) from exc
        except (anthropic.APITimeoutError, httpx2.TimeoutException) as exc:
            raise self._errors.timeout(timeout) from exc
        except (anthropic.APIConnectionError, httpx2.TransportError) as exc:
            raise self._errors.network(exc.__cause__ or exc) from exc
        except anthropic.APIResponseValidationError as exc:
            raise self._errors.malformed(str(exc)) from exc
        except AgentError:
            raise
        except Exception as exc:  # any other SDK failure means the answer was unusable
            log.warning("unusable Anthropic response", exc_info=True)
            raise self._errors.malformed(f"{type(exc).__name__}: {exc}") from exc

    def _status_error(self, exc: anthropic.APIStatusError) -> AgentError:
        detail = exc.api_message or exc.message
        return self._errors.status(
            exc.status_code,
            detail,
            error_type=exc.type,
            headers=dict(exc.response.headers),
        )
