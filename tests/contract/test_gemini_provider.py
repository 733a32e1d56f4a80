"""GeminiProvider driving the real `google-genai` SDK over HTTP against FakeGemini."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from bot.agent.errors import AgentError, ErrorKind
from bot.agent.messages import (
    Message,
    ModelRequest,
    StopReason,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)
from bot.agent.providers.gemini import GeminiProvider
from bot.agent.providers.gemini_wire import SYNTHETIC_ID
from fakes.gemini_server import (
    FakeGemini,
    gemini_blocked,
    gemini_call_part,
    gemini_error,
    gemini_function_call,
    gemini_response,
    gemini_text,
    gemini_text_part,
    gemini_usage,
)
from fakes.http_server import Reply

KEY = "AIza-test-key-0123456789"
# A signature whose standard base64 has + and /, so the SDK's URL-safe re-encoding shows.
SIG = bytes([0xFB, 0xEF, 0xFF, 0x01, 0x02])
READ = ToolSpec(
    "read_file",
    "Read a file",
    {
        "type": "object",
        "properties": {"path": {"type": "string", "title": "Path"}, "title": {"type": "string"}},
        "required": ["path"],
    },
)


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini(api_key=KEY) as server:
        yield server


@pytest.fixture
def provider(fake: FakeGemini) -> Iterator[GeminiProvider]:
    p = GeminiProvider(KEY, "gemini-2.5-pro", base_url=fake.url)
    yield p
    p.close()


def _request(*messages: Message, timeout: float = 10.0) -> ModelRequest:
    return ModelRequest(
        system="You edit Jsonnet.", messages=messages, tools=(READ,), timeout=timeout
    )


def _fail(provider: GeminiProvider, request: ModelRequest | None = None) -> AgentError:
    with pytest.raises(AgentError) as info:
        provider.complete(request or _request(Message.user("hi")))
    assert KEY not in str(info.value)
    return info.value


def test_multi_step_function_calls_echo_signatures(
    fake: FakeGemini, provider: GeminiProvider
) -> None:
    fake.script(
        gemini_response(
            gemini_text_part("Let me look.", signature=b"text-sig"),
            gemini_call_part("read_file", {"path": "a.jsonnet"}, signature=SIG),
            gemini_call_part("read_file", {"path": "b.jsonnet"}, id="call-b"),
            usage=gemini_usage(prompt=120, cached=100, output=8, thoughts=30),
        ),
        gemini_text("Done."),
    )
    history = [Message.user("Scale web")]
    first = provider.complete(_request(*history))
    assert first.stop_reason is StopReason.TOOL_USE
    assert first.usage == Usage(20, 38, cache_read_tokens=100)
    text, call_a, call_b = first.message.parts
    assert text == Text("Let me look.", b"text-sig")
    assert isinstance(call_a, ToolCall)
    assert isinstance(call_b, ToolCall)
    assert call_a.id.startswith(SYNTHETIC_ID)
    assert (call_a.name, call_a.arguments, call_a.signature) == (
        "read_file",
        {"path": "a.jsonnet"},
        SIG,
    )
    assert (call_b.id, call_b.signature) == ("call-b", None)
    history += [
        first.message,
        Message(
            "user",
            (
                ToolResult(call_a.id, "read_file", "{ replicas: 1 }"),
                ToolResult("call-b", "read_file", "no such file", is_error=True),
            ),
        ),
    ]
    second = provider.complete(_request(*history))
    assert second.stop_reason is StopReason.COMPLETE
    assert second.message.text == "Done."

    assert len(fake.requests) == 2  # automatic function calling never posts on its own
    assert all(r.path == "/v1beta/models/gemini-2.5-pro:generateContent" for r in fake.requests)
    assert fake.requests[0].header("x-goog-api-key") == KEY
    body = fake.generate_requests()[1]
    assert body["systemInstruction"]["parts"] == [{"text": "You edit Jsonnet."}]
    declaration = body["tools"][0]["functionDeclarations"][0]
    assert declaration["parametersJsonSchema"]["properties"] == {
        "path": {"type": "string"},
        "title": {"type": "string"},
    }
    model_turn, responses = body["contents"][1], body["contents"][2]
    assert model_turn["role"] == "model"
    assert "id" not in model_turn["parts"][1]["functionCall"]
    sent_sig = model_turn["parts"][1]["thoughtSignature"]
    assert base64.urlsafe_b64decode(sent_sig + "=" * (-len(sent_sig) % 4)) == SIG
    assert responses == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "name": "read_file",
                    "response": {"output": "{ replicas: 1 }"},
                }
            },
            {
                "functionResponse": {
                    "id": "call-b",
                    "name": "read_file",
                    "response": {"error": "no such file"},
                }
            },
        ],
    }


def test_dropped_signature_is_rejected_like_the_real_api(
    fake: FakeGemini, provider: GeminiProvider
) -> None:
    fake.script(gemini_function_call("read_file", {"path": "a"}, signature=SIG))
    first = provider.complete(_request(Message.user("go")))
    call = first.message.tool_calls[0]
    unsigned = Message("assistant", (ToolCall(call.id, call.name, call.arguments),))
    result = Message("user", (ToolResult(call.id, call.name, "x"),))
    error = _fail(provider, _request(Message.user("go"), unsigned, result))
    assert (error.kind, error.status) == (ErrorKind.INVALID, 400)
    assert "thought_signature" in error.message


@pytest.mark.parametrize(
    ("finish", "expected"),
    [
        ("STOP", StopReason.COMPLETE),
        ("MAX_TOKENS", StopReason.MAX_TOKENS),
        ("SAFETY", StopReason.REFUSAL),
        ("RECITATION", StopReason.REFUSAL),
    ],
)
def test_finish_reasons(
    fake: FakeGemini, provider: GeminiProvider, finish: str, expected: StopReason
) -> None:
    fake.script(gemini_text("x", finish_reason=finish))
    assert provider.complete(_request(Message.user("hi"))).stop_reason is expected


def test_blocked_prompt_is_a_refusal(fake: FakeGemini, provider: GeminiProvider) -> None:
    fake.script(gemini_blocked("PROHIBITED_CONTENT"))
    response = provider.complete(_request(Message.user("hi")))
    assert response.stop_reason is StopReason.REFUSAL
    assert response.message.parts == ()
    assert response.extra["block_reason"] == "PROHIBITED_CONTENT"


def test_malformed_function_call_is_a_retryable_agent_error(
    fake: FakeGemini, provider: GeminiProvider
) -> None:
    fake.script(gemini_response(finish_reason="MALFORMED_FUNCTION_CALL"))
    error = _fail(provider)
    assert (error.kind, error.retryable) == (ErrorKind.AGENT, True)


def test_rate_limit_uses_retry_info(fake: FakeGemini, provider: GeminiProvider) -> None:
    fake.script(gemini_error(429, "Resource has been exhausted", retry_delay="2.5s"))
    error = _fail(provider)
    assert (error.kind, error.retryable, error.retry_after) == (ErrorKind.RATE_LIMIT, True, 2.5)
    assert len(fake.requests) == 1


def test_retry_after_ms_header_wins(fake: FakeGemini, provider: GeminiProvider) -> None:
    fake.script(gemini_error(429, "slow", retry_delay="9s", headers={"retry-after-ms": "250"}))
    assert _fail(provider).retry_after == 0.25


def test_server_errors_are_retryable(fake: FakeGemini, provider: GeminiProvider) -> None:
    fake.script(gemini_error(503, "The model is overloaded."))
    error = _fail(provider)
    assert (error.kind, error.retryable, error.status) == (ErrorKind.AGENT, True, 503)
    assert len(fake.requests) == 1  # no SDK retries


def test_bad_key_names_the_variable_but_not_the_key() -> None:
    with FakeGemini(api_key="the-right-key") as fake:
        provider = GeminiProvider(KEY, "gemini-2.5-pro", base_url=fake.url)
        try:
            fake.script()  # validation answers before any script is used
            error = _fail(provider)
        finally:
            provider.close()
    assert (error.kind, error.retryable) == (ErrorKind.INVALID, False)
    assert "GEMINI_API_KEY" in error.message


def test_unknown_model_is_invalid(fake: FakeGemini, provider: GeminiProvider) -> None:
    fake.script(gemini_error(404, "models/gemini-2.5-pro is not found"))
    error = _fail(provider)
    assert (error.kind, error.status) == (ErrorKind.INVALID, 404)
    assert "TANKA_BOT_MODEL" in error.message


def test_malformed_body(fake: FakeGemini, provider: GeminiProvider) -> None:
    fake.script(Reply(raw=b"<html>bad gateway</html>"))
    error = _fail(provider)
    assert (error.kind, error.retryable) == (ErrorKind.AGENT, True)


def test_client_timeout(fake: FakeGemini, provider: GeminiProvider) -> None:
    fake.script(Reply(body=gemini_text("late"), delay=30))
    error = _fail(provider, _request(Message.user("hi"), timeout=0.3))
    assert (error.kind, error.retryable) == (ErrorKind.TIMEOUT, True)
    assert fake.requests[0].header("x-server-timeout") == "1"


def test_connection_refused_is_network_error() -> None:
    with FakeGemini() as fake:
        url = fake.url
    provider = GeminiProvider(KEY, "gemini-2.5-pro", base_url=url)
    try:
        error = _fail(provider)
    finally:
        provider.close()
    assert (error.kind, error.retryable) == (ErrorKind.NETWORK, True)
    assert "TANKA_BOT_GEMINI_BASE_URL" in error.message
