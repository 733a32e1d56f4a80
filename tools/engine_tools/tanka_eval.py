"""The agent's `tanka_eval(path, expression="")`: what an environment evaluates to, as `tk eval`.

It answers "what does this evaluate to" (a field, a config value, a list of names) without
rendering a whole environment. Read-only. Secret values never come out: the entrypoint's whole
output is evaluated once to teach the session's mask every value of every Secret in it (the
registry hides them by value in every result), and Secrets in the answer itself are redacted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, Field

from tools.context import ToolContext
from tools.engine_tools.tanka_render import env_dir, eval_settings, tool_error
from tools.registry import Tool
from tools.tanka.errors import TankaError
from tools.tanka.eval import eval_output, evaluate_path
from tools.tanka.redact import is_secret, learn_secret_values, redact_deep


class EvalInput(BaseModel):
    path: str = Field(
        description="Environment directory or Jsonnet entrypoint, relative to the repository root."
    )
    expression: str = Field(
        "",
        description="Optional expression on the output, as `tk eval -e`: `data.app.spec` reads "
        "main.data.app.spec, `['key']` reads main['key']. Empty: the whole output.",
    )


def _secrets(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        if is_secret(value):
            yield value
            return
        for item in value.values():
            yield from _secrets(item)
    elif isinstance(value, list):
        for item in value:
            yield from _secrets(item)


def evaluate(ctx: ToolContext, params: EvalInput) -> str:
    path = env_dir(ctx, params.path)
    settings = eval_settings(ctx)
    try:
        whole = evaluate_path(path, settings=settings)
        learn_secret_values(_secrets(whole), ctx.secret_mask)
        value = whole
        if params.expression:
            value = evaluate_path(path, params.expression, settings=settings)
    except TankaError as exc:
        raise tool_error(ctx, exc) from None
    return eval_output(redact_deep(value))


TOOLS: list[Tool[Any]] = [
    Tool(
        "tanka_eval",
        "Evaluate an environment's Jsonnet to JSON exactly as `tk eval` does, optionally only an "
        "expression on its output (like `tk eval -e`). Use it to answer what a field or config "
        "value evaluates to without rendering the whole environment. Secret values are redacted.",
        EvalInput,
        evaluate,
        page_hint="pass an expression to read only the part you need",
    ),
]
