"""A fake OpenAI Chat Completions API for driving the real `openai` SDK.

Point the SDK at `fake.url + "/v1"` (OPENAI_BASE_URL). Requests are validated like the real
API: every tool call of an assistant message answered by a `tool` message before anything
else, no orphan tool messages, function tools with object parameters.

    with FakeOpenAI() as fake:
        fake.script(
            openai_tool_calls(("call_1", "read_file", {"path": "a.jsonnet"})),
            openai_text("Done.", usage=openai_usage(prompt=50, completion=5, cached=40)),
            openai_error(429, "Rate limit reached", headers={"retry-after-ms": "1"}),
        )
        fake.chat_requests()[1]["messages"]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fakes.http_server import RecordedRequest, Reply, ScriptedHTTPServer

__all__ = ["FakeOpenAI", "openai_error", "openai_text", "openai_tool_calls", "openai_usage"]

JSON = dict[str, Any]
_ERROR_TYPES = {401: "invalid_request_error", 404: "invalid_request_error", 429: "requests"}


def openai_usage(*, prompt: int = 10, completion: int = 5, cached: int = 0) -> JSON:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def openai_completion(message: JSON, *, finish_reason: str, usage: JSON | None = None) -> JSON:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        ],
        "usage": usage or openai_usage(),
    }


def openai_text(
    text: str,
    *,
    finish_reason: str = "stop",
    refusal: str | None = None,
    usage: JSON | None = None,
) -> JSON:
    message = {"role": "assistant", "content": text, "refusal": refusal}
    return openai_completion(message, finish_reason=finish_reason, usage=usage)


def openai_tool_calls(
    *calls: tuple[str, str, Mapping[str, Any]], text: str | None = None, usage: JSON | None = None
) -> JSON:
    """An assistant message calling tools: each call is (id, name, args)."""
    message = {
        "role": "assistant",
        "content": text,
        "refusal": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(dict(args))},
            }
            for call_id, name, args in calls
        ],
    }
    return openai_completion(message, finish_reason="tool_calls", usage=usage)


def openai_error(
    status: int,
    message: str,
    *,
    type: str | None = None,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    error = {
        "message": message,
        "type": type or _ERROR_TYPES.get(status, "server_error"),
        "param": None,
        "code": code,
    }
    return Reply(
        status=status,
        body={"error": error},
        headers={"x-request-id": "req_fake", **(headers or {})},
    )


class FakeOpenAI(ScriptedHTTPServer):
    """Answers POST /v1/chat/completions. `api_key`, when given, must be the bearer token."""

    def __init__(self, *, api_key: str | None = None) -> None:
        super().__init__()
        self.api_key = api_key

    def chat_requests(self) -> list[JSON]:
        return [r.json for r in self.requests if r.path == "/v1/chat/completions"]

    def validate(self, request: RecordedRequest) -> Reply | None:
        if request.method != "POST" or request.path != "/v1/chat/completions":
            return openai_error(404, f"Unknown request URL: {request.method} {request.path}")
        token = (request.header("authorization") or "").removeprefix("Bearer ")
        if not token or (self.api_key is not None and token != self.api_key):
            return openai_error(401, "Incorrect API key provided.", code="invalid_api_key")
        body = request.json if isinstance(request.json, dict) else {}
        problem = _tools_problem(body.get("tools") or []) or _messages_problem(
            body.get("messages") or []
        )
        return openai_error(400, problem, code="invalid_request") if problem else None


def _tools_problem(tools: Sequence[JSON]) -> str | None:
    for i, tool in enumerate(tools):
        params = tool.get("function", {}).get("parameters", {})
        if tool.get("type") != "function" or params.get("type") != "object":
            return f"Invalid schema for function at tools[{i}]: parameters must be an object"
    return None


def _messages_problem(messages: Sequence[JSON]) -> str | None:
    if not messages:
        return "'messages' must contain at least one message"
    open_ids: list[str] = []
    for i, message in enumerate(messages):
        if message.get("role") == "tool":
            if message.get("tool_call_id") not in open_ids:
                return (
                    f"Invalid parameter: messages[{i}] with role 'tool' must be a response to "
                    "a preceding message with 'tool_calls'."
                )
            open_ids.remove(message["tool_call_id"])
            continue
        if open_ids:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                f"responding to each 'tool_call_id'. Missing: {', '.join(open_ids)}"
            )
        open_ids = [c["id"] for c in message.get("tool_calls") or []]
    return None
