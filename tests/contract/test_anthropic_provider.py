"""AnthropicProvider driving the real `anthropic` SDK over HTTP against FakeAnthropic."""

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
from bot.agent.providers.anthropic import AnthropicProvider
from fakes.anthropic_server import (
    FakeAnthropic,
    anthropic_error,
    anthropic_message,
    anthropic_stream_error,
    anthropic_text,
    anthropic_usage,
    text_block,
    tool_use_block,
)
from fakes.http_server import Reply, SSEEvent

KEY = "sk-ant-test-0123456789"
READ = ToolSpec(
    "read_file",
    "Read a file",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
GREP = ToolSpec("grep", "Search", {"type": "object", "properties": {}})


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic(api_key=KEY) as server:
        yield server


@pytest.fixture
def provider(fake: FakeAnthropic) -> Iterator[AnthropicProvider]:
    p = AnthropicProvider(KEY, "claude-opus-4-6", base_url=fake.url, strict_responses=True)
    yield p
    p.close()


def _request(*messages: Message, timeout: float = 10.0) -> ModelRequest:
    return ModelRequest(
        system="You edit Jsonnet.", messages=messages, tools=(READ, GREP), timeout=timeout
    )


def _fail(provider: AnthropicProvider, request: ModelRequest | None = None) -> AgentError:
    with pytest.raises(AgentError) as info:
        provider.complete(request or _request(Message.user("hi")))
    assert KEY not in str(info.value)
    return info.value


def test_multi_step_tool_conversation(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.script(
        anthropic_message(
            text_block("Reading both."),
            tool_use_block("toolu_1", "read_file", {"path": "a.jsonnet"}),
            tool_use_block("toolu_2", "grep", {}),
            usage=anthropic_usage(input=12, output=7, cache_write=900),
        ),
        anthropic_text("All done.", usage=anthropic_usage(input=30, output=4, cache_read=900)),
    )
    history = [Message.user("Scale web to 3")]
    first = provider.complete(_request(*history))
    assert first.stop_reason is StopReason.TOOL_USE
    assert first.message.parts == (
        Text("Reading both."),
        ToolCall("toolu_1", "read_file", {"path": "a.jsonnet"}),
        ToolCall("toolu_2", "grep", {}),
    )
    assert first.usage == Usage(12, 7, cache_read_tokens=0, cache_write_tokens=900)
    history += [
        first.message,
        Message(
            "user",
            (
                ToolResult("toolu_1", "read_file", "{ replicas: 1 }"),
                ToolResult("toolu_2", "grep", "no such pattern", is_error=True),
            ),
        ),
    ]
    second = provider.complete(_request(*history))
    assert second.stop_reason is StopReason.COMPLETE
    assert second.message == Message("assistant", (Text("All done."),))
    assert second.usage == Usage(30, 4, cache_read_tokens=900, cache_write_tokens=0)

    sent = fake.messages_requests()
    assert len(sent) == 2
    assert fake.pending == 0
    body = sent[1]
    assert body["stream"] is True
    assert body["model"] == "claude-opus-4-6"
    assert body["system"] == [
        {"type": "text", "text": "You edit Jsonnet.", "cache_control": {"type": "ephemeral"}}
    ]
    assert [t["name"] for t in body["tools"]] == ["read_file", "grep"]
    assert "cache_control" not in body["tools"][0]
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "read_file",
        "input": {"path": "a.jsonnet"},
    }
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{ replicas: 1 }"},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": "no such pattern",
                "is_error": True,
                "cache_control": {"type": "ephemeral"},
            },
        ],
    }
    assert fake.requests[0].header("authorization") == f"Bearer {KEY}"
    assert fake.requests[0].header("x-stainless-retry-count") == "0"


def test_consecutive_user_parts_are_merged_with_tool_results_first(
    fake: FakeAnthropic, provider: AnthropicProvider
) -> None:
    fake.script(anthropic_text("ok"))
    provider.complete(
        _request(
            Message.user("Scale web"),
            Message("assistant", (Text(""), ToolCall("toolu_9", "grep", {}))),
            Message("user", (ToolResult("toolu_9", "grep", ""),)),
            Message.user("also check db"),
        )
    )
    messages = fake.messages_requests()[0]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == [
        {"type": "tool_use", "id": "toolu_9", "name": "grep", "input": {}}
    ]
    assert [b["type"] for b in messages[2]["content"]] == ["tool_result", "text"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("end_turn", StopReason.COMPLETE),
        ("max_tokens", StopReason.MAX_TOKENS),
        ("refusal", StopReason.REFUSAL),
        ("stop_sequence", StopReason.COMPLETE),
    ],
)
def test_stop_reasons(
    fake: FakeAnthropic, provider: AnthropicProvider, raw: str, expected: StopReason
) -> None:
    details = {"type": "refusal", "category": "cyber"} if raw == "refusal" else None
    fake.script(anthropic_message(text_block("x"), stop_reason=raw, stop_details=details))
    response = provider.complete(_request(Message.user("hi")))
    assert response.stop_reason is expected
    if details:
        assert response.extra["stop_details"] == details


def test_rate_limit_with_retry_after_ms(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.script(
        anthropic_error(429, "rate_limit_error", "slow down", headers={"retry-after-ms": "1500"})
    )
    error = _fail(provider)
    assert (error.kind, error.retryable, error.retry_after, error.status) == (
        ErrorKind.RATE_LIMIT,
        True,
        1.5,
        429,
    )
    assert len(fake.requests) == 1  # no SDK retries


def test_overloaded_status_529(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.script(
        anthropic_error(529, "overloaded_error", "Overloaded", headers={"retry-after": "3"})
    )
    error = _fail(provider)
    assert (error.kind, error.retryable, error.retry_after) == (ErrorKind.RATE_LIMIT, True, 3.0)


def test_overloaded_inside_stream(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.script(anthropic_stream_error("overloaded_error"))
    error = _fail(provider)
    assert (error.kind, error.retryable, error.status) == (ErrorKind.RATE_LIMIT, True, 200)
    assert "overloaded" in error.message


def test_server_error(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.script(anthropic_error(500, "api_error", "Internal server error"))
    error = _fail(provider)
    assert (error.kind, error.retryable, error.status) == (ErrorKind.AGENT, True, 500)
    assert len(fake.requests) == 1


def test_bad_key_names_the_variable_but_not_the_key() -> None:
    with FakeAnthropic(api_key="the-right-key") as fake:
        provider = AnthropicProvider(KEY, "claude-opus-4-6", base_url=fake.url)
        try:
            error = _fail(provider)
        finally:
            provider.close()
    assert (error.kind, error.retryable, error.status) == (ErrorKind.INVALID, False, 401)
    assert "ANTHROPIC_API_KEY" in error.message


def test_request_the_api_rejects_is_invalid(
    fake: FakeAnthropic, provider: AnthropicProvider
) -> None:
    orphan = Message("user", (ToolResult("toolu_x", "grep", "out"),))
    error = _fail(provider, _request(orphan))
    assert (error.kind, error.retryable, error.status) == (ErrorKind.INVALID, False, 400)
    assert "unexpected `tool_use_id`" in error.message


def test_malformed_response_body(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    bad = anthropic_text("x")
    del bad["usage"]  # strict validation catches what the real API never sends
    fake.script(
        Reply(events=[SSEEvent({"type": "message_start", "message": bad}, "message_start")])
    )
    error = _fail(provider)
    assert (error.kind, error.retryable) == (ErrorKind.AGENT, True)
    assert "cannot use" in error.message


def test_garbage_stream_is_an_agent_error(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.script(Reply(raw=b"event: message_start\ndata: {not json\n\n"))
    error = _fail(provider)
    assert error.kind is ErrorKind.AGENT


def test_client_timeout(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.script(Reply(body=anthropic_text("late"), delay=30))
    error = _fail(provider, _request(Message.user("hi"), timeout=0.3))
    assert (error.kind, error.retryable) == (ErrorKind.TIMEOUT, True)
    assert len(fake.requests) == 1


def test_connection_refused_is_network_error() -> None:
    with FakeAnthropic() as fake:
        url = fake.url
    provider = AnthropicProvider(KEY, "claude-opus-4-6", base_url=url)
    try:
        error = _fail(provider)
    finally:
        provider.close()
    assert (error.kind, error.retryable) == (ErrorKind.NETWORK, True)
    assert "ANTHROPIC_BASE_URL" in error.message


def test_non_object_tool_schema_is_refused_before_sending(
    fake: FakeAnthropic, provider: AnthropicProvider
) -> None:
    bad = ToolSpec("list", "List", {"type": "array"})
    request = ModelRequest(system="s", messages=[Message.user("hi")], tools=[bad])
    error = _fail(provider, request)
    assert error.kind is ErrorKind.INVALID
    assert "object schema" in error.message
    assert fake.requests == []
