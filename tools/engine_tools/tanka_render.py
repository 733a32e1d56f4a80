"""The agent's rendering tools: find environments, show one rendered, diff one against the base.

Paths the model gives are confined to the checkout by `tools.sandbox`; outputs name directories
relative to the checkout root. Rendered Secret values are redacted in every result (redact.py)
and added to the session's mask, which hides them by value in every tool result (registry.py);
error texts have the checkout's absolute path removed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from tools import sandbox
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import Tool
from tools.tanka.diff.revision import RevisionDiffer
from tools.tanka.env.loader import EvalSettings, list_environments
from tools.tanka.env.spec import Environment
from tools.tanka.errors import TankaError
from tools.tanka.pipeline.render import show


class FindInput(BaseModel):
    path: str = Field(
        ".", description="Directory to search, relative to the repository root ('.' for all)."
    )


class EnvInput(BaseModel):
    env_path: str = Field(
        description="Environment directory (holding main.jsonnet) relative to the repository root."
    )


def _differ(ctx: ToolContext) -> RevisionDiffer:
    return ctx.differ if ctx.differ is not None else RevisionDiffer()


def eval_settings(ctx: ToolContext) -> EvalSettings:
    # The whole checkout, not just the Tanka project: vendored symlinks may point elsewhere in it.
    return EvalSettings(confine=ctx.root.resolve())


def tool_error(ctx: ToolContext, exc: Exception) -> ToolError:
    root = str(ctx.root.resolve())
    text = str(exc).replace(root + os.sep, "").replace(root, ".")
    return ToolError(text)


def _describe(ctx: ToolContext, env: Environment) -> str:
    where = sandbox.relative(ctx.root, env.base) if env.base else env.name
    parts = [where]
    if env.inline:
        parts.append(f"name={env.name}")
    parts.append(f"namespace={env.namespace or '-'}")
    if env.api_server:
        parts.append(f"server={env.api_server}")
    return "  ".join(parts)


def find_environments(ctx: ToolContext, params: FindInput) -> str:
    path = sandbox.resolve(ctx.root, params.path)
    if not path.exists():
        raise ToolError(f"{params.path} does not exist; give a directory of the repository")
    try:
        envs = list_environments(path, settings=eval_settings(ctx))
    except TankaError as exc:
        raise tool_error(ctx, exc) from None
    if not envs:
        return f"No Tanka environment (main.jsonnet in a Tanka project) below {params.path}."
    lines = [_describe(ctx, e) for e in envs]
    return f"{len(lines)} environment(s):\n" + "\n".join(lines)


def env_dir(ctx: ToolContext, given: str) -> Path:
    path = sandbox.resolve(ctx.root, given)
    if not path.exists():
        raise ToolError(
            f"{given} does not exist; use tanka_find_environments to list the environments"
        )
    return path


def show_environment(ctx: ToolContext, params: EnvInput) -> str:
    path = env_dir(ctx, params.env_path)
    try:
        text = show(path, redact=True, settings=eval_settings(ctx), mask=ctx.secret_mask)
    except TankaError as exc:
        raise tool_error(ctx, exc) from None
    return text or f"{params.env_path} renders no resources."


def diff_environment(ctx: ToolContext, params: EnvInput) -> str:
    path = sandbox.resolve(ctx.root, params.env_path)
    rel = sandbox.relative(ctx.root, path)
    try:
        result = _differ(ctx).diff(ctx.root, ctx.base_commit or "HEAD", [rel], mask=ctx.secret_mask)
    except TankaError as exc:
        raise tool_error(ctx, exc) from None
    base = result.base[:12]
    if result.errors:
        raise ToolError("\n".join(f"{e.env}: {e.error}" for e in result.errors))
    if not result.has_changes:
        return f"No differences in the rendered manifests of {rel} since {base}."
    return f"Rendered manifests of {rel}, base {base} -> working tree:\n" + result.text()


TOOLS: list[Tool[Any]] = [
    Tool(
        "tanka_find_environments",
        "List the Tanka environments below a directory (like `tk env list`): each environment's "
        "directory, its inline name if any, and its default namespace and API server.",
        FindInput,
        find_environments,
    ),
    Tool(
        "tanka_show",
        "Render an environment to Kubernetes YAML exactly as `tk show` would (Secret values are "
        "redacted). Use it to check what your change produces; prefer tanka_diff to see only "
        "what changed.",
        EnvInput,
        show_environment,
        page_hint="use tanka_diff to see only the changed resources",
    ),
    Tool(
        "tanka_diff",
        "Diff an environment's rendered manifests between the session's base commit and the "
        "current files: a summary of resources added, changed and removed, then a unified diff "
        "per resource. Needs no cluster. Secret values are redacted.",
        EnvInput,
        diff_environment,
        page_hint="the diff is long; the summary at the top lists every changed resource",
    ),
]
