"""A fake Anthropic Messages API for driving the real `anthropic` SDK.

Script replies with the helpers below; a scripted message is sent as JSON or, when the request
asks for `stream: true`, as the named SSE events the real API emits. Requests are validated
like the real API (object input schemas, tool_result pairing, alternating roles, non-empty
text, at most 4 cache breakpoints) and rejected with the real error JSON shape.

    with FakeAnthropic() as fake:
        fake.script(
            anthropic_tool_use("toolu_1", "read_file", {"path": "main.jsonnet"}),
            anthropic_text("Done.", usage=anthropic_usage(input=10, output=5, cache_read=100)),
            anthropic_error(429, "rate_limit_error", "slow down", headers={"retry-after-ms": "1"}),
            anthropic_stream_error("overloaded_error"),
        )
        # point the bot at it: ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY=<anything>
        ...
        fake.messages_requests()[1]["messages"]  # what the SDK sent on the second call
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fakes.http_server import RecordedRequest, Reply, ScriptedHTTPServer, SSEEvent

__all__ = [
    "FakeAnthropic",
    "anthropic_error",
    "anthropic_message",
    "anthropic_stream_error",
    "anthropic_text",
    "anthropic_tool_use",
    "anthropic_usage",
    "text_block",
    "tool_use_block",
]

JSON = dict[str, Any]
_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


def anthropic_usage(
    *, input: int = 10, output: int = 5, cache_read: int = 0, cache_write: int = 0
) -> JSON:
    return {
        "input_tokens": input,
        "output_tokens": output,
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_write,
    }


def text_block(text: str) -> JSON:
    return {"type": "text", "text": text}


def tool_use_block(id: str, name: str, args: Mapping[str, Any]) -> JSON:
    return {"type": "tool_use", "id": id, "name": name, "input": dict(args)}


def anthropic_message(
    *blocks: JSON,
    stop_reason: str | None = None,
    usage: JSON | None = None,
    model: str = "claude-test",
    stop_details: JSON | None = None,
) -> JSON:
    """A complete Message; stop_reason defaults to tool_use when a block calls a tool."""
    if stop_reason is None:
        has_tool = any(b["type"] == "tool_use" for b in blocks)
        stop_reason = "tool_use" if has_tool else "end_turn"
    message: JSON = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage or anthropic_usage(),
    }
    if stop_details is not None:
        message["stop_details"] = stop_details
    return message


def anthropic_text(text: str, *, stop_reason: str = "end_turn", usage: JSON | None = None) -> JSON:
    return anthropic_message(text_block(text), stop_reason=stop_reason, usage=usage)


def anthropic_tool_use(
    id: str,
    name: str,
    args: Mapping[str, Any],
    *,
    text: str | None = None,
    usage: JSON | None = None,
) -> JSON:
    blocks = ([text_block(text)] if text else []) + [tool_use_block(id, name, args)]
    return anthropic_message(*blocks, usage=usage)


def _error_body(error_type: str, message: str) -> JSON:
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": "req_fake",
    }


def anthropic_error(
    status: int, error_type: str, message: str, *, headers: Mapping[str, str] | None = None
) -> Reply:
    return Reply(
        status=status,
        body=_error_body(error_type, message),
        headers={"request-id": "req_fake", **(headers or {})},
    )


def anthropic_stream_error(
    error_type: str = "overloaded_error", message: str = "Overloaded"
) -> Reply:
    """A 200 stream that starts a message and then fails with an `error` event."""
    start = anthropic_message(stop_reason=None)
    start["content"], start["stop_reason"] = [], None
    return Reply(
        events=[
            SSEEvent({"type": "message_start", "message": start}, event="message_start"),
            SSEEvent(_error_body(error_type, message), event="error"),
        ]
    )


def stream_events(message: JSON) -> list[SSEEvent]:
    """The SSE events the real API sends for `message`."""
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {**message["usage"], "output_tokens": 1}
    events = [SSEEvent({"type": "message_start", "message": start}, event="message_start")]
    events.append(SSEEvent({"type": "ping"}, event="ping"))
    for index, block in enumerate(message["content"]):
        events.extend(_block_events(index, block))
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    if "stop_details" in message:
        delta["stop_details"] = message["stop_details"]
    usage = {"output_tokens": message["usage"]["output_tokens"]}
    events.append(
        SSEEvent({"type": "message_delta", "delta": delta, "usage": usage}, "message_delta")
    )
    events.append(SSEEvent({"type": "message_stop"}, event="message_stop"))
    return events


def _block_events(index: int, block: JSON) -> list[SSEEvent]:
    empty: JSON
    if block["type"] == "text":
        empty, half = {"type": "text", "text": ""}, len(block["text"]) // 2
        deltas = [block["text"][:half], block["text"][half:]]
        chunks = [{"type": "text_delta", "text": d} for d in deltas]
    else:
        empty = {**block, "input": {}}
        raw = json.dumps(block["input"])
        half = len(raw) // 2
        chunks = [
            {"type": "input_json_delta", "partial_json": p} for p in ("", raw[:half], raw[half:])
        ]
    events = [
        SSEEvent(
            {"type": "content_block_start", "index": index, "content_block": empty},
            "content_block_start",
        )
    ]
    events += [
        SSEEvent({"type": "content_block_delta", "index": index, "delta": c}, "content_block_delta")
        for c in chunks
    ]
    events.append(SSEEvent({"type": "content_block_stop", "index": index}, "content_block_stop"))
    return events


class FakeAnthropic(ScriptedHTTPServer):
    """Answers POST /v1/messages. `api_key`, when given, must be the key the client sends."""

    def __init__(self, *, api_key: str | None = None) -> None:
        super().__init__()
        self.api_key = api_key

    def messages_requests(self) -> list[JSON]:
        return [r.json for r in self.requests if r.path == "/v1/messages"]

    def render(self, item: Any, request: RecordedRequest) -> Reply:
        if isinstance(item, Reply):
            return item
        if isinstance(request.json, dict) and request.json.get("stream"):
            return Reply(events=stream_events(item), headers={"request-id": "req_fake"})
        return Reply(body=item, headers={"request-id": "req_fake"})

    def validate(self, request: RecordedRequest) -> Reply | None:
        if request.method != "POST" or request.path != "/v1/messages":
            return anthropic_error(
                404, "not_found_error", f"no route {request.method} {request.path}"
            )
        problem = self._auth_problem(request)
        if problem:
            return anthropic_error(401, "authentication_error", problem)
        problem = request_problem(request.json)
        if problem:
            return anthropic_error(400, "invalid_request_error", problem)
        return None

    def _auth_problem(self, request: RecordedRequest) -> str | None:
        bearer = (request.header("authorization") or "").removeprefix("Bearer ")
        sent = request.header("x-api-key") or bearer
        if not sent:
            return "missing API key: send x-api-key or Authorization: Bearer"
        if self.api_key is not None and sent != self.api_key:
            return "invalid x-api-key"
        return None


def request_problem(body: Any) -> str | None:
    """The first rule of the Messages API that `body` breaks, worded like the real API."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    for field in ("model", "max_tokens", "messages"):
        if field not in body:
            return f"{field}: Field required"
    return (
        _tools_problem(body.get("tools") or [])
        or _messages_problem(body["messages"])
        or _cache_problem(body)
    )


def _tools_problem(tools: Sequence[JSON]) -> str | None:
    for i, tool in enumerate(tools):
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            return f"tools.{i}.custom.input_schema.type: Input should be 'object'"
    return None


def _content(message: JSON) -> list[JSON]:
    content = message.get("content")
    return [text_block(content)] if isinstance(content, str) else list(content or [])


def _messages_problem(messages: Sequence[JSON]) -> str | None:
    if not messages or messages[0].get("role") != "user":
        return "messages: the first message must use the user role"
    for i, message in enumerate(messages):
        if i and message.get("role") == messages[i - 1].get("role"):
            return f"messages.{i}: roles must alternate between user and assistant"
        for j, block in enumerate(_content(message)):
            if block.get("type") == "text" and not block.get("text", "").strip():
                return f"messages.{i}.content.{j}: text content blocks must be non-empty"
        problem = _pairing_problem(messages, i)
        if problem:
            return problem
    return None


def _pairing_problem(messages: Sequence[JSON], i: int) -> str | None:
    blocks = _content(messages[i])
    results = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
    if results and blocks[0].get("type") != "tool_result":
        return f"messages.{i}: tool_result blocks must come first in the user message"
    previous = _content(messages[i - 1]) if i else []
    uses = [b["id"] for b in previous if b.get("type") == "tool_use"]
    if messages[i].get("role") == "user" and set(uses) - set(results):
        missing = ", ".join(sorted(set(uses) - set(results)))
        return (
            f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
            f"after: {missing}. Each `tool_use` block must have a corresponding `tool_result` "
            "block in the next message."
        )
    unexpected = set(results) - set(uses)
    if unexpected:
        ids = ", ".join(sorted(unexpected))
        return f"messages.{i}: unexpected `tool_use_id` found in `tool_result` blocks: {ids}"
    return None


def _cache_problem(body: JSON) -> str | None:
    blocks: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    blocks += system if isinstance(system, list) else []
    for message in body["messages"]:
        blocks += _content(message)
    count = sum(1 for b in blocks if isinstance(b, dict) and "cache_control" in b)
    if count > 4:
        return f"A maximum of 4 blocks with cache_control may be provided. Found {count}."
    return None
