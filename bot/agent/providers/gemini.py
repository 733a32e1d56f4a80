"""Gemini Developer API adapter (the `google-genai` SDK, one HTTP attempt per call).

Non-streaming `generate_content`: the SDK has no client-side size guard, function calls arrive
whole either way, and the per-call timeout (sent as `X-Server-Timeout` too) bounds the wait.
The SDK never retries without `retry_options`, and we pass none: the loop owns retries.
Tools are plain declarations (never Python callables) and automatic function calling is off,
so one `complete` is exactly one HTTP request.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import httpx2
from google import genai
from google.genai import errors, types

from bot.agent.errors import AgentError
from bot.agent.messages import ModelRequest, ModelResponse, StopReason
from bot.agent.providers import gemini_wire as wire
from bot.agent.providers.errors import ErrorMapper, retry_after_seconds

log = logging.getLogger(__name__)

DEFAULT_API_VERSION = "v1beta"
_RETRY_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


class GeminiProvider:
    """`LLMProvider` for Gemini models through the Developer API (API key)."""

    def __init__(
        self,
        api_key: str,
        model: str,
        *,
        base_url: str | None = None,
        api_version: str = DEFAULT_API_VERSION,
    ) -> None:
        self._model = model
        self._errors = ErrorMapper(
            "Gemini",
            model,
            "GEMINI_API_KEY (or GOOGLE_API_KEY)",
            "TANKA_BOT_GEMINI_BASE_URL",
            secret=api_key,
        )
        # The API version is pinned: SDK majors have changed the default (v1beta -> v1).
        options = types.HttpOptions(base_url=base_url, api_version=api_version)
        self._client = genai.Client(api_key=api_key, vertexai=False, http_options=options)

    @property
    def name(self) -> str:
        return "gemini"

    @property
    def model(self) -> str:
        return self._model

    def close(self) -> None:
        self._client.close()

    def complete(self, request: ModelRequest) -> ModelResponse:
        config = types.GenerateContentConfig(
            system_instruction=request.system or None,
            tools=wire.tools(request.tools) or None,
            max_output_tokens=request.max_output_tokens,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            http_options=types.HttpOptions(timeout=max(int(request.timeout * 1000), 1)),
        )
        contents = wire.contents(request.messages)
        response = self._call(contents, config, request.timeout)
        return self._parse(response)

    def _call(
        self, contents: list[types.Content], config: types.GenerateContentConfig, timeout: float
    ) -> types.GenerateContentResponse:
        try:
            return self._client.models.generate_content(
                model=self._model, contents=contents, config=config
            )
        except errors.APIError as exc:
            raise self._api_error(exc) from exc
        except httpx2.TimeoutException as exc:
            raise self._errors.timeout(timeout) from exc
        except httpx2.TransportError as exc:
            raise self._errors.network(exc) from exc
        except Exception as exc:  # any other SDK failure means the answer was unusable
            log.warning("unusable Gemini response", exc_info=True)
            raise self._errors.malformed(f"{type(exc).__name__}: {exc}") from exc

    def _parse(self, response: types.GenerateContentResponse) -> ModelResponse:
        usage = wire.usage(response.usage_metadata)
        extra: dict[str, Any] = {"response_id": response.response_id}
        if not response.candidates:
            feedback = response.prompt_feedback
            if feedback is None or feedback.block_reason is None:
                raise self._errors.malformed("no candidates and no prompt feedback")
            extra["block_reason"] = str(feedback.block_reason.value)
            empty = wire.parse_parts(())
            return ModelResponse(empty, usage, StopReason.REFUSAL, self._model, extra)
        candidate = response.candidates[0]
        parts = candidate.content.parts if candidate.content else None
        message = wire.parse_parts(parts or ())
        finish = candidate.finish_reason.value if candidate.finish_reason else None
        extra["finish_reason"] = finish
        stop = wire.stop_reason(finish, message)
        model = response.model_version or self._model
        return ModelResponse(message, usage, stop, model, extra)

    def _api_error(self, exc: errors.APIError) -> AgentError:
        body: Mapping[str, Any] = exc.details if isinstance(exc.details, Mapping) else {}
        raw = body.get("error")
        error: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        code = exc.code or 500
        if code == 400 and "API_KEY_INVALID" in str(error.get("details", "")):
            code = 401  # Gemini reports a bad key as a 400 INVALID_ARGUMENT
        headers = getattr(getattr(exc, "response", None), "headers", None)
        wait = retry_after_seconds(dict(headers) if headers else None)
        if wait is None:
            wait = _retry_delay(error.get("details"))
        detail = f"{exc.status or ''} {exc.message or ''}".strip()
        return self._errors.status(code, detail, retry_after=wait)


def _retry_delay(details: Any) -> float | None:
    """Seconds from a google.rpc.RetryInfo detail, e.g. {"retryDelay": "30s"}."""
    if not isinstance(details, list):
        return None
    for item in details:
        if isinstance(item, Mapping) and str(item.get("@type", "")).endswith("RetryInfo"):
            match = _RETRY_DELAY.match(str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None
