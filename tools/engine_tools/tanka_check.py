"""The agent's `tanka_check`: schema and policy findings, as `tanka-bot tk check` reports them.

With an env_path it checks that environment; without one, every environment the session's
changes affect (since its base commit). Secret values never appear: findings are scrubbed
(check/secrets.py) and error texts have the checkout's absolute path removed.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, Field

from tools import sandbox
from tools.context import ToolContext
from tools.errors import ToolError
from tools.registry import Tool
from tools.tanka.check import CheckOptions, CheckSetupError, check_environments
from tools.tanka.errors import TankaError
from tools.tanka.imports.changed import affected_now


class CheckInput(BaseModel):
    env_path: str = Field(
        "",
        description=(
            "Environment directory (holding main.jsonnet) relative to the repository root; "
            "empty to check every environment your changes affect."
        ),
    )


def _scrub_paths(ctx: ToolContext, text: str) -> str:
    root = str(ctx.root.resolve())
    return text.replace(root + os.sep, "").replace(root, ".")


def check_environment(ctx: ToolContext, params: CheckInput) -> str:
    root = ctx.root.resolve()
    if params.env_path:
        path = sandbox.resolve(ctx.root, params.env_path)
        if not path.exists():
            raise ToolError(
                f"{params.env_path} does not exist; use tanka_find_environments to list them"
            )
        paths = [sandbox.relative(ctx.root, path)]
    else:
        paths = _affected(ctx)
        if not paths:
            return (
                "No environment is affected by your changes yet, so there is nothing to check; "
                "give env_path to check one environment."
            )
    options = CheckOptions(policy_dir=ctx.policy_dir, kubernetes_version=ctx.kubernetes_version)
    try:
        report = check_environments(root, paths, options)
    except CheckSetupError as exc:
        raise ToolError(f"the check cannot run: {_scrub_paths(ctx, str(exc))}") from None
    except TankaError as exc:
        raise ToolError(_scrub_paths(ctx, str(exc))) from None
    text = _scrub_paths(ctx, report.text())
    if report.failed:
        text += (
            "Fix these errors (schema errors and denied policies) before you finish; if one "
            "cannot be fixed, say why in your summary.\n"
        )
    return text


def _affected(ctx: ToolContext) -> list[str]:
    trees = ctx.differ.trees if ctx.differ is not None else None  # the session's base trees
    try:
        return affected_now(ctx.root, ctx.base_commit or "HEAD", trees)
    except TankaError as exc:
        raise ToolError(_scrub_paths(ctx, str(exc))) from None


TOOLS: list[Tool[Any]] = [
    Tool(
        "tanka_check",
        "Check rendered manifests like CI would: every object is validated strictly against "
        "the Kubernetes schemas (unknown fields, wrong types, missing required fields) and the "
        "repository's Rego policies (policy/). Returns a summary line, then one line per "
        "finding: level, environment, Kind/namespace/name, field path, message. Call it before "
        "you finish, on one environment or (empty env_path) all that your changes affect.",
        CheckInput,
        check_environment,
        page_hint="check one environment at a time",
    ),
]
