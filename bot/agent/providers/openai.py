"""OpenAI Chat Completions adapter, for OpenAI and OpenAI-compatible endpoints.

`openai` is an optional extra, imported only when this provider is built. Non-streaming: the
SDK has no size guard and every call passes `request.timeout`. SDK retries are off
(`max_retries=0`): the loop owns retries.
"""

from __future__ import annotations

import logging
from types import ModuleType
from typing import Any

import httpx2

from bot.agent.errors import AgentError
from bot.agent.messages import ModelRequest, ModelResponse
from bot.agent.providers import openai_wire as wire
from bot.agent.providers.errors import ErrorMapper
from bot.errors import UserError

log = logging.getLogger(__name__)


def load_sdk() -> ModuleType:
    try:
        import openai  # noqa: PLC0415 - the openai extra is optional
    except ImportError as exc:
        raise UserError(
            "TANKA_BOT_PROVIDER=openai needs the openai package; "
            "install it with: pip install 'tanka-bot[openai]'"
        ) from exc
    return openai


class OpenAIProvider:
    """`LLMProvider` over Chat Completions with function tools.

    Official OpenAI takes `max_completion_tokens`; many compatible servers only know
    `max_tokens`, so a custom `base_url` switches to it unless `token_param` says otherwise.
    `strict_responses` turns on the SDK's strict response validation (used by tests).
    """

    def __init__(
        self,
        api_key: str,
        model: str,
        *,
        base_url: str | None = None,
        token_param: str | None = None,
        strict_responses: bool = False,
    ) -> None:
        sdk = load_sdk()
        self._sdk = sdk
        self._model = model
        self._token_param = token_param or ("max_tokens" if base_url else "max_completion_tokens")
        self._errors = ErrorMapper(
            "OpenAI", model, "OPENAI_API_KEY", "OPENAI_BASE_URL", secret=api_key
        )
        self._client = sdk.OpenAI(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            _strict_response_validation=strict_responses,
        )

    @property
    def name(self) -> str:
        return "openai"

    @property
    def model(self) -> str:
        return self._model

    @property
    def token_param(self) -> str:
        """The request field that carries `max_output_tokens`."""
        return self._token_param

    def close(self) -> None:
        self._client.close()

    def complete(self, request: ModelRequest) -> ModelResponse:
        params: dict[str, Any] = {
            "model": self._model,
            "messages": wire.messages(request.system, request.messages),
            self._token_param: request.max_output_tokens,
        }
        tools = wire.tools(request.tools)
        if tools:
            params["tools"] = tools
        completion = self._call(params, request.timeout)
        if not completion.choices:
            raise self._errors.malformed("the completion has no choices")
        choice = completion.choices[0]
        message = wire.parse_message(choice.message)
        refusal = getattr(choice.message, "refusal", None)
        return ModelResponse(
            message=message,
            usage=wire.usage(completion.usage),
            stop_reason=wire.stop_reason(choice.finish_reason, message, refusal),
            model=completion.model or self._model,
            extra={"id": completion.id, **({"refusal": refusal} if refusal else {})},
        )

    def _call(self, params: dict[str, Any], timeout: float) -> Any:
        sdk = self._sdk
        try:
            return self._client.chat.completions.create(**params, timeout=timeout)
        except sdk.APIStatusError as exc:
            raise self._status_error(exc) from exc
        except (sdk.APITimeoutError, httpx2.TimeoutException) as exc:
            raise self._errors.timeout(timeout) from exc
        except (sdk.APIConnectionError, httpx2.TransportError) as exc:
            raise self._errors.network(exc.__cause__ or exc) from exc
        except AgentError:
            raise
        except Exception as exc:  # any other SDK failure means the answer was unusable
            log.warning("unusable OpenAI response", exc_info=True)
            raise self._errors.malformed(f"{type(exc).__name__}: {exc}") from exc

    def _status_error(self, exc: Any) -> AgentError:
        body = exc.body if isinstance(exc.body, dict) else {}
        detail = str(body.get("message") or exc.message)
        error_type = getattr(exc, "type", None)
        return self._errors.status(
            exc.status_code,
            detail,
            error_type=error_type if isinstance(error_type, str) else None,
            headers=dict(exc.response.headers),
        )
