"""OpenAIProvider driving the real `openai` SDK over HTTP against FakeOpenAI."""

from __future__ import annotations

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
from bot.agent.providers.openai import OpenAIProvider
from fakes.http_server import Reply
from fakes.openai_server import (
    FakeOpenAI,
    openai_error,
    openai_text,
    openai_tool_calls,
    openai_usage,
)

KEY = "sk-test-0123456789"
READ = ToolSpec(
    "read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=KEY) as server:
        yield server


@pytest.fixture
def provider(fake: FakeOpenAI) -> Iterator[OpenAIProvider]:
    p = OpenAIProvider(KEY, "gpt-test", base_url=fake.url + "/v1", strict_responses=True)
    yield p
    p.close()


def _request(*messages: Message, timeout: float = 10.0) -> ModelRequest:
    return ModelRequest(
        system="You edit Jsonnet.", messages=messages, tools=(READ,), timeout=timeout
    )


def _fail(provider: OpenAIProvider, request: ModelRequest | None = None) -> AgentError:
    with pytest.raises(AgentError) as info:
        provider.complete(request or _request(Message.user("hi")))
    assert KEY not in str(info.value)
    return info.value


def test_multi_step_tool_conversation(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.script(
        openai_tool_calls(
            ("call_1", "read_file", {"path": "a"}),
            ("call_2", "read_file", {"path": "b"}),
            text="Reading.",
            usage=openai_usage(prompt=100, completion=9, cached=60),
        ),
        openai_text("Done."),
    )
    history = [Message.user("Scale web")]
    first = provider.complete(_request(*history))
    assert first.stop_reason is StopReason.TOOL_USE
    assert first.usage == Usage(40, 9, cache_read_tokens=60)
    assert first.message.parts == (
        Text("Reading."),
        ToolCall("call_1", "read_file", {"path": "a"}),
        ToolCall("call_2", "read_file", {"path": "b"}),
    )
    history += [
        first.message,
        Message(
            "user",
            (
                ToolResult("call_1", "read_file", "x"),
                ToolResult("call_2", "read_file", "missing", is_error=True),
            ),
        ),
    ]
    second = provider.complete(_request(*history))
    assert (second.stop_reason, second.message.text) == (StopReason.COMPLETE, "Done.")

    body = fake.chat_requests()[1]
    assert body["max_tokens"] == 8192  # a custom base URL speaks the compatible dialect
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert body["messages"][2]["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": '{"path": "a"}',
    }
    assert body["messages"][4] == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": "ERROR: missing",
    }
    assert fake.requests[0].header("authorization") == f"Bearer {KEY}"


@pytest.mark.parametrize(
    ("finish", "refusal", "expected"),
    [
        ("stop", None, StopReason.COMPLETE),
        ("length", None, StopReason.MAX_TOKENS),
        ("content_filter", None, StopReason.REFUSAL),
        ("stop", "I can't help with that.", StopReason.REFUSAL),
    ],
)
def test_stop_reasons(
    fake: FakeOpenAI,
    provider: OpenAIProvider,
    finish: str,
    refusal: str | None,
    expected: StopReason,
) -> None:
    fake.script(openai_text("x", finish_reason=finish, refusal=refusal))
    assert provider.complete(_request(Message.user("hi"))).stop_reason is expected


def test_invalid_tool_arguments_are_a_retryable_agent_error(
    fake: FakeOpenAI, provider: OpenAIProvider
) -> None:
    reply = openai_tool_calls(("call_1", "read_file", {}))
    reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = "{bad"
    fake.script(reply)
    error = _fail(provider)
    assert (error.kind, error.retryable) == (ErrorKind.AGENT, True)


def test_rate_limit(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.script(openai_error(429, "Rate limit reached", headers={"retry-after": "2"}))
    error = _fail(provider)
    assert (error.kind, error.retryable, error.retry_after) == (ErrorKind.RATE_LIMIT, True, 2.0)
    assert len(fake.requests) == 1


def test_server_error(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.script(openai_error(502, "Bad gateway"))
    assert (_fail(provider).kind, len(fake.requests)) == (ErrorKind.AGENT, 1)


def test_bad_key(fake: FakeOpenAI) -> None:
    provider = OpenAIProvider("sk-wrong-key", "gpt-test", base_url=fake.url + "/v1")
    try:
        error = _fail(provider)
    finally:
        provider.close()
    assert (error.kind, error.status) == (ErrorKind.INVALID, 401)
    assert "OPENAI_API_KEY" in error.message
    assert "sk-wrong-key" not in error.message


def test_orphan_tool_result_is_invalid(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    error = _fail(provider, _request(Message("user", (ToolResult("c9", "read_file", "x"),))))
    assert (error.kind, error.status) == (ErrorKind.INVALID, 400)


def test_malformed_body(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.script(Reply(body={"id": "x", "object": "chat.completion"}))
    error = _fail(provider)
    assert (error.kind, error.retryable) == (ErrorKind.AGENT, True)


def test_client_timeout(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.script(Reply(body=openai_text("late"), delay=30))
    error = _fail(provider, _request(Message.user("hi"), timeout=0.3))
    assert (error.kind, error.retryable) == (ErrorKind.TIMEOUT, True)
    assert len(fake.requests) == 1
