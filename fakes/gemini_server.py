"""A fake Gemini Developer API for driving the real `google-genai` SDK.

Answers POST /v1/models/{m}:generateContent and /v1beta/... with scripted responses. The SDK
sends some keys in snake_case, so request keys are normalised to camelCase before validation
(never inside function args, responses or JSON schemas). Validation follows the real API:
function call turns after a user turn, as many function responses as calls with matching names,
and every thought signature this fake issued echoed back on the same part (compared after
base64 decoding, either alphabet, since the SDK re-encodes URL-safe).

    with FakeGemini() as fake:
        fake.script(
            gemini_function_call("read_file", {"path": "a.jsonnet"}, signature=b"sig-1"),
            gemini_text("Done.", usage=gemini_usage(prompt=120, cached=100, output=5)),
            gemini_error(429, "quota", retry_delay="2s"),
        )
        # point the bot at it: TANKA_BOT_GEMINI_BASE_URL=fake.url, GEMINI_API_KEY=<anything>
        fake.generate_requests()[1]["contents"]  # camelCase, as the API reads it
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from fakes.http_server import RecordedRequest, Reply, ScriptedHTTPServer

__all__ = [
    "FakeGemini",
    "gemini_blocked",
    "gemini_call_part",
    "gemini_error",
    "gemini_function_call",
    "gemini_response",
    "gemini_text",
    "gemini_text_part",
    "gemini_usage",
]

JSON = dict[str, Any]
_ROUTE = re.compile(r"^/(v1|v1beta)/models/([^/:]+):generateContent$")
_OPAQUE = frozenset({"args", "response", "parametersJsonSchema", "responseJsonSchema"})
_GRPC_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED"} | {
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def gemini_text_part(text: str, *, signature: bytes | None = None) -> JSON:
    part: JSON = {"text": text}
    if signature is not None:
        part["thoughtSignature"] = _b64(signature)
    return part


def gemini_call_part(
    name: str, args: Mapping[str, Any], *, signature: bytes | None = None, id: str | None = None
) -> JSON:
    call: JSON = {"name": name, "args": dict(args)}
    if id is not None:
        call["id"] = id
    part: JSON = {"functionCall": call}
    if signature is not None:
        part["thoughtSignature"] = _b64(signature)
    return part


def gemini_usage(*, prompt: int = 10, output: int = 5, cached: int = 0, thoughts: int = 0) -> JSON:
    usage: JSON = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + output + thoughts,
    }
    if cached:
        usage["cachedContentTokenCount"] = cached
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    return usage


def gemini_response(*parts: JSON, finish_reason: str = "STOP", usage: JSON | None = None) -> JSON:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": list(parts)},
                "finishReason": finish_reason,
                "index": 0,
            }
        ],
        "usageMetadata": usage or gemini_usage(),
        "modelVersion": "gemini-test",
        "responseId": "resp_fake",
    }


def gemini_text(
    text: str,
    *,
    signature: bytes | None = None,
    finish_reason: str = "STOP",
    usage: JSON | None = None,
) -> JSON:
    part = gemini_text_part(text, signature=signature)
    return gemini_response(part, finish_reason=finish_reason, usage=usage)


def gemini_function_call(
    name: str,
    args: Mapping[str, Any],
    *,
    signature: bytes | None = None,
    id: str | None = None,
    usage: JSON | None = None,
) -> JSON:
    """A response with one function call (finishReason STOP, as the real API says)."""
    return gemini_response(gemini_call_part(name, args, signature=signature, id=id), usage=usage)


def gemini_blocked(reason: str = "SAFETY") -> JSON:
    """A prompt the API refused to answer: no candidates, only promptFeedback."""
    return {"promptFeedback": {"blockReason": reason}, "usageMetadata": gemini_usage(output=0)}


def gemini_error(
    code: int,
    message: str,
    *,
    status: str | None = None,
    retry_delay: str | None = None,
    reason: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    """An error in Google RPC shape; `reason` adds an ErrorInfo, `retry_delay` a RetryInfo."""
    error: JSON = {"code": code, "message": message, "status": status or _GRPC_STATUS.get(code)}
    details: list[JSON] = []
    if reason is not None:
        info = "type.googleapis.com/google.rpc.ErrorInfo"
        details.append({"@type": info, "reason": reason, "domain": "googleapis.com"})
    if retry_delay is not None:
        retry = "type.googleapis.com/google.rpc.RetryInfo"
        details.append({"@type": retry, "retryDelay": retry_delay})
    if details:
        error["details"] = details
    return Reply(status=code, body={"error": error}, headers=dict(headers or {}))


def camel_keys(value: Any) -> Any:
    """Request JSON with structural keys in camelCase; user data below `_OPAQUE` keys kept."""
    if isinstance(value, list):
        return [camel_keys(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: JSON = {}
    for key, sub in value.items():
        head, *rest = key.split("_")
        camel = head + "".join(w[:1].upper() + w[1:] for w in rest)
        out[camel] = sub if camel in _OPAQUE else camel_keys(sub)
    return out


def _decode_signature(text: str) -> bytes | None:
    padded = text + "=" * (-len(text) % 4)
    try:
        return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None


def _call_key(call: Mapping[str, Any]) -> str:
    return json.dumps([call.get("name"), call.get("args") or {}], sort_keys=True)


class FakeGemini(ScriptedHTTPServer):
    """`api_key`, when given, must be the key the client sends in x-goog-api-key."""

    def __init__(self, *, api_key: str | None = None) -> None:
        super().__init__()
        self.api_key = api_key
        self.issued_signatures: dict[str, bytes] = {}  # call or text key -> signature bytes

    def generate_requests(self) -> list[JSON]:
        """Bodies of generateContent requests, keys normalised to camelCase."""
        return [camel_keys(r.json) for r in self.requests if r.path.endswith(":generateContent")]

    def render(self, item: Any, request: RecordedRequest) -> Reply:
        if isinstance(item, Reply):
            return item
        for candidate in item.get("candidates", []):
            for part in candidate.get("content", {}).get("parts", []):
                self._remember(part)
        return Reply(body=item)

    def _remember(self, part: JSON) -> None:
        if "thoughtSignature" not in part:
            return
        key = _call_key(part["functionCall"]) if "functionCall" in part else part.get("text", "")
        self.issued_signatures[key] = base64.b64decode(part["thoughtSignature"])

    def validate(self, request: RecordedRequest) -> Reply | None:
        if request.method != "POST" or not _ROUTE.match(request.path):
            return gemini_error(404, f"no route {request.method} {request.path}")
        sent = request.header("x-goog-api-key") or (request.query.get("key") or [""])[0]
        if not sent or (self.api_key is not None and sent != self.api_key):
            message = "API key not valid. Please pass a valid API key."
            return gemini_error(400, message, reason="API_KEY_INVALID")
        body = camel_keys(request.json)
        problem = self._contents_problem(body.get("contents") if isinstance(body, dict) else None)
        return gemini_error(400, problem) if problem else None

    def _contents_problem(self, contents: Any) -> str | None:
        if not isinstance(contents, list) or not contents:
            return "contents is not specified"
        if contents[0].get("role", "user") != "user":
            return "Please ensure that the first turn is a user turn."
        for i, content in enumerate(contents):
            parts = content.get("parts") or []
            signed = content.get("role") == "model"
            problem = self._turn_problem(contents, i, parts) or (
                self._signature_problem(parts) if signed else None
            )
            if problem:
                return problem
        return None

    def _turn_problem(self, contents: Sequence[JSON], i: int, parts: Sequence[JSON]) -> str | None:
        previous = contents[i - 1] if i else {}
        calls = [p["functionCall"] for p in previous.get("parts", []) if "functionCall" in p]
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        if any("functionCall" in p for p in parts) and previous.get("role", "user") != "user":
            return (
                "Please ensure that function call turn comes immediately after a user turn "
                "or after a function response turn."
            )
        if responses and len(responses) != len(calls):
            return (
                "Please ensure that the number of function response parts is equal to the "
                "number of function call parts of the function call turn."
            )
        if responses and sorted(r.get("name", "") for r in responses) != sorted(
            c.get("name", "") for c in calls
        ):
            return "function response names do not match the function calls of the previous turn"
        return None

    def _signature_problem(self, parts: Sequence[JSON]) -> str | None:
        for position, part in enumerate(parts):
            if "functionCall" in part:
                key = _call_key(part["functionCall"])
                label = f"function call `{part['functionCall'].get('name')}`, position {position}"
            else:
                key, label = part.get("text", ""), f"text part, position {position}"
            expected = self.issued_signatures.get(key)
            if expected is None:
                continue
            sent = part.get("thoughtSignature")
            if sent is None:
                return f"Function call is missing a thought_signature in {label}."
            if _decode_signature(sent) != expected:
                return f"Corrupted thought signature in {label}."
        return None
