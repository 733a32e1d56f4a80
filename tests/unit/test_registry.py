"""tools.registry: schemas the providers accept, validation messages, truncation, tool failures."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from tools.context import ToolContext
from tools.errors import ToolError
from tools.redaction import REDACTED, SecretMask
from tools.registry import (
    TRUNCATE_HEAD,
    TRUNCATE_TAIL,
    Tool,
    ToolOutcome,
    ToolRegistry,
    input_schema,
    truncate,
)


class ReadInput(BaseModel):
    path: str = Field(description="file path relative to the repository root")
    offset: int = Field(0, ge=0)
    limit: int = Field(500, ge=1, le=500)


class NoInput(BaseModel):
    pass


class PackagesInput(BaseModel):
    path: str
    packages: list[str] = []


def _read(ctx: ToolContext, params: ReadInput) -> str:
    return f"{params.path}@{params.offset}+{params.limit}"


def _long(ctx: ToolContext, params: NoInput) -> str:
    return "H" * TRUNCATE_HEAD + "M" * 5000 + "T" * TRUNCATE_TAIL


def _refuse(ctx: ToolContext, params: NoInput) -> str:
    raise ToolError("path escapes the checkout")


def _bug(ctx: ToolContext, params: NoInput) -> str:
    table: dict[str, str] = {}
    return table["missing"]


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry(
        [
            Tool("file_read", "Read a file.", ReadInput, _read, page_hint="use offset"),
            Tool("long", "Long output.", NoInput, _long, page_hint="use offset=N to page"),
            Tool("refuse", "Refuses.", NoInput, _refuse),
            Tool("bug", "Has a bug.", NoInput, _bug),
        ]
    )


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(root=tmp_path)


def test_schemas_are_objects_without_titles() -> None:
    for model in (ReadInput, NoInput, PackagesInput):
        schema = input_schema(model)
        assert schema["type"] == "object"
        assert isinstance(schema["properties"], dict)
        assert "title" not in schema
        assert all("title" not in prop for prop in schema["properties"].values())
    read = input_schema(ReadInput)
    assert read["required"] == ["path"]
    assert read["properties"]["limit"] == {
        "default": 500,
        "maximum": 500,
        "minimum": 1,
        "type": "integer",
    }
    assert read["properties"]["path"]["description"].startswith("file path")
    assert input_schema(NoInput)["properties"] == {}
    assert input_schema(PackagesInput)["properties"]["packages"]["items"] == {"type": "string"}


def test_specs_follow_registration_order(registry: ToolRegistry) -> None:
    assert registry.names() == ["file_read", "long", "refuse", "bug"]
    spec = registry.specs()[0]
    assert (spec.name, spec.description) == ("file_read", "Read a file.")
    assert spec.input_schema == input_schema(ReadInput)


def test_duplicate_names_are_refused() -> None:
    tool = Tool("x", "x", NoInput, lambda ctx, p: "")
    with pytest.raises(ValueError, match="registered twice"):
        ToolRegistry([tool, tool])


def test_valid_arguments_reach_the_tool(registry: ToolRegistry, ctx: ToolContext) -> None:
    outcome = registry.execute(ctx, "file_read", {"path": "a.jsonnet", "offset": 3})
    assert not outcome.is_error
    assert outcome.content == "a.jsonnet@3+500"


def test_invalid_arguments_say_what_and_where(registry: ToolRegistry, ctx: ToolContext) -> None:
    outcome = registry.execute(ctx, "file_read", {"offset": -1, "limit": "lots"})
    assert outcome.is_error
    text = outcome.content
    assert text.startswith("invalid arguments for file_read: ")
    assert "path: Field required" in text
    assert "offset: Input should be greater than or equal to 0" in text
    assert "limit: Input should be a valid integer" in text
    assert text.endswith("Fix them and call again.")


def test_unknown_tool_lists_the_known_ones(registry: ToolRegistry, ctx: ToolContext) -> None:
    outcome = registry.execute(ctx, "tanka_apply", {})
    assert outcome.is_error
    assert outcome.content == (
        "unknown tool 'tanka_apply'; the tools are: bug, file_read, long, refuse"
    )


def test_tool_errors_and_bugs_become_error_results(
    registry: ToolRegistry, ctx: ToolContext, caplog: pytest.LogCaptureFixture
) -> None:
    refused = registry.execute(ctx, "refuse", {})
    assert refused.is_error
    assert refused.content == "refuse failed: path escapes the checkout"
    bug = registry.execute(ctx, "bug", {})
    assert bug.is_error
    assert bug.content == "bug failed unexpectedly (KeyError: 'missing')"
    assert "tool bug raised" in caplog.text


def test_long_output_keeps_head_and_tail_with_a_byte_count(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    outcome = registry.execute(ctx, "long", {})
    assert not outcome.is_error
    head, marker, tail = outcome.content.split("\n")
    assert head == "H" * TRUNCATE_HEAD
    assert tail == "T" * TRUNCATE_TAIL
    assert marker == (
        "[... 5000 bytes dropped from the middle of this output; use offset=N to page ...]"
    )


def test_results_and_errors_are_masked_with_the_sessions_secret_values(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    ctx = ToolContext(root=tmp_path, secret_mask=SecretMask(["lib/creds.libsonnet", "escapes"]))
    assert registry.execute(ctx, "file_read", {"path": "lib/creds.libsonnet"}).content == (
        f"{REDACTED}@0+500"
    )
    refused = registry.execute(ctx, "refuse", {})
    assert refused == ToolOutcome(f"refuse failed: path {REDACTED} the checkout", is_error=True)
    assert ToolContext(root=tmp_path).secret_mask.size == 0  # a fresh mask per context


def test_masking_comes_before_truncation(registry: ToolRegistry, tmp_path: Path) -> None:
    # A value straddling the cut would leave its first part in the head if truncation came first.
    # Any twelve of the value's letters in a row are a piece of it: the H's and M's all go, and
    # what is left is short enough to need no cut. Cut first, the head would show H's.
    ctx = ToolContext(root=tmp_path, secret_mask=SecretMask(["H" * 10 + "M" * 10]))
    assert registry.execute(ctx, "long", {}).content == REDACTED + "T" * TRUNCATE_TAIL


def test_the_mask_is_taught_before_the_first_call_runs(tmp_path: Path) -> None:
    # A teacher still working when a first edit lands would render every environment the edit
    # affects, which the change's diff renders again: the call waits for it before it runs.
    events: list[str] = []

    def write(ctx: ToolContext, params: NoInput) -> str:
        events.append("tool ran")
        return "written"

    registry = ToolRegistry([Tool("file_write", "Writes.", NoInput, write)])
    ctx = ToolContext(root=tmp_path, teach_mask=lambda: events.append("mask taught"))
    assert registry.execute(ctx, "file_write", {}).content == "written"
    assert events == ["mask taught", "tool ran"]


def test_truncation_counts_bytes_and_never_splits_a_character() -> None:
    text = "é" * 100  # 200 bytes
    cut = truncate(text, head=11, tail=11, hint="page")
    first, marker, last = cut.split("\n")
    assert first == "é" * 5  # 10 bytes: the half character at byte 11 is dropped
    assert last == "é" * 5
    assert marker == "[... 180 bytes dropped from the middle of this output; page ...]"
    assert truncate("short", head=11, tail=11, hint="page") == "short"
    exact = "x" * 22
    assert truncate(exact, head=11, tail=11, hint="page") == exact
