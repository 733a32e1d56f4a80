"""Tools the model may call: a name, a description, a pydantic input model and a function.

The registry turns input models into JSON Schema for the provider, validates the arguments the
model sends, runs the function and turns every failure into an error result the model can read.
Nothing a tool does can crash the loop.
"""

from __future__ import annotations

import copy
import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from tools.context import ToolContext
from tools.errors import ToolError

log = logging.getLogger(__name__)

InputT = TypeVar("InputT", bound=BaseModel)

# Smart truncation (docs/design.md, decision 6), sized for a model's context: keep the start
# (headers, first errors) and a larger end (summaries, final errors) of long outputs.
TRUNCATE_HEAD = 4 * 1024
TRUNCATE_TAIL = 28 * 1024


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Tool(Generic[InputT]):
    name: str
    description: str
    input_model: type[InputT]
    run: Callable[[ToolContext, InputT], str]
    # How to see the rest of a long output, quoted in the truncation marker.
    page_hint: str = "narrow the request to see the dropped part"
    # A schema given by someone else (an MCP server's own): offered as is instead of the input
    # model's; the input model then only has to accept what that schema describes.
    schema: Mapping[str, Any] | None = None
    # Declared read-only by its source (an MCP tool annotated readOnlyHint); built-in tools are
    # classified by name in tools/subagent_port.py.
    read_only: bool = False

    def spec(self) -> ToolSpec:
        schema = self.schema if self.schema is not None else input_schema(self.input_model)
        return ToolSpec(self.name, self.description, schema)

    def invoke(self, ctx: ToolContext, arguments: Mapping[str, Any]) -> ToolOutcome:
        """Run the tool; its result, or its error, with the session's Secret values masked.

        Masking here rather than in each tool covers every result alike: a rendered manifest, a
        git diff or a file_read of a source file that holds a value the session has rendered,
        and an error text that quotes one. It comes before truncation, which could otherwise cut
        a value in two and leave a part of it unmasked.
        """
        # Before the first output: values not rendered yet are known too. Waited for before the
        # tool runs, not after: a first call that edits a shared library would otherwise have
        # the teacher render every environment the edit affects, which the change's diff then
        # renders again (bench/proposal_scale.py: 2,000 environments, twice).
        ctx.teach_mask()
        outcome = self._outcome(ctx, arguments)
        content = ctx.secret_mask.apply(outcome.content)
        if outcome.is_error:
            return ToolOutcome(content, is_error=True)
        return ToolOutcome(truncate(content, hint=self.page_hint))

    def _outcome(self, ctx: ToolContext, arguments: Mapping[str, Any]) -> ToolOutcome:
        try:
            params = self.input_model.model_validate(dict(arguments))
        except ValidationError as exc:
            return ToolOutcome(_describe_invalid(self.name, exc), is_error=True)
        try:
            output = self.run(ctx, params)
        except ToolError as exc:
            return ToolOutcome(f"{self.name} failed: {exc}", is_error=True)
        except Exception as exc:  # a tool bug must not end the session
            log.exception("tool %s raised", self.name)
            return ToolOutcome(
                f"{self.name} failed unexpectedly ({type(exc).__name__}: {exc})", is_error=True
            )
        return ToolOutcome(output)


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """JSON Schema for a tool's input; always an object, as every provider requires.

    Generated once per model (pydantic takes about a millisecond per model, and every turn and
    sub-agent asks for its tools' specs); each caller gets its own copy.
    """
    return copy.deepcopy(_input_schema(model))


@functools.cache
def _input_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


def _describe_invalid(name: str, exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        problems.append(f"{where}: {err['msg']}")
    return f"invalid arguments for {name}: " + "; ".join(problems) + ". Fix them and call again."


def truncate(text: str, *, head: int = TRUNCATE_HEAD, tail: int = TRUNCATE_TAIL, hint: str) -> str:
    """Cut the middle out of long text, saying how many bytes went and how to get them."""
    data = text.encode("utf-8")
    if len(data) <= head + tail:
        return text
    first = data[:head].decode("utf-8", errors="ignore")
    last = data[-tail:].decode("utf-8", errors="ignore")
    dropped = len(data) - len(first.encode()) - len(last.encode())
    marker = f"\n[... {dropped} bytes dropped from the middle of this output; {hint} ...]\n"
    return first + marker + last


# Tools known only at run time (an MCP server's listing): asked again for each turn.
ToolSource = Callable[[], Iterable[Tool[Any]]]


class ToolRegistry:
    def __init__(
        self,
        tools: Iterable[Tool[Any]] = (),
        *,
        sources: Iterable[ToolSource] = (),
        keep: Callable[[Tool[Any]], bool] | None = None,
    ) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        self._sources = list(sources)
        self._keep = keep
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool[Any]) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} registered twice")
        self._tools[tool.name] = tool

    def add_source(self, source: ToolSource) -> None:
        self._sources.append(source)

    def tools(self) -> dict[str, Tool[Any]]:
        """Every tool offered now: the registered ones, then the sources' (first name wins)."""
        found = dict(self._tools)
        for source in self._sources:
            for tool in source():
                found.setdefault(tool.name, tool)
        if self._keep is None:
            return found
        return {name: tool for name, tool in found.items() if self._keep(tool)}

    def filtered(self, keep: Callable[[Tool[Any]], bool]) -> ToolRegistry:
        """A view offering only the tools `keep` accepts, sources included."""
        outer = self._keep

        def both(tool: Tool[Any]) -> bool:
            return keep(tool) and (outer is None or outer(tool))

        view = ToolRegistry(sources=self._sources, keep=both)
        view._tools = self._tools  # shared: a tool registered later shows in the view too
        return view

    def names(self) -> list[str]:
        return list(self.tools())

    def specs(self) -> list[ToolSpec]:
        return [tool.spec() for tool in self.tools().values()]

    def execute(self, ctx: ToolContext, name: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        tools = self._tools if not self._sources and self._keep is None else self.tools()
        tool = tools.get(name)
        if tool is None:
            known = ", ".join(sorted(tools))
            return ToolOutcome(f"unknown tool {name!r}; the tools are: {known}", is_error=True)
        return tool.invoke(ctx, arguments)
