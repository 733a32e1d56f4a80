"""The agent's Tanka tools: validate, format (without writing) and find affected environments.

Every path the model gives is resolved by `tools.sandbox` inside the session's checkout, so no
tool reads or reports anything outside it; outputs name files relative to the root.
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
from tools.tanka.errors import FormatError, ImportersError
from tools.tanka.imports.importers import DELETED_PREFIX, importers
from tools.tanka.source.formatter import format_source
from tools.tanka.source.lint import format_diagnostics
from tools.tanka.source.lint_child import lint_in_child


class ValidateInput(BaseModel):
    file_path: str = Field(
        description="Jsonnet file (or directory of them) relative to the repository root."
    )


class FormatInput(BaseModel):
    file_path: str = Field(description="Jsonnet file relative to the repository root.")


class ImportersInput(BaseModel):
    paths: list[str] = Field(
        min_length=1,
        max_length=500,
        description=(
            "Changed files relative to the repository root. Files that were deleted may be "
            "given as they were, or as 'deleted:<path>'."
        ),
    )


def _root(ctx: ToolContext) -> Path:
    return ctx.root.resolve()


def validate_jsonnet(ctx: ToolContext, params: ValidateInput) -> str:
    path = sandbox.resolve(ctx.root, params.file_path)
    if not path.exists():
        raise ToolError(f"{params.file_path} does not exist; give an existing Jsonnet file")
    return format_diagnostics(lint_in_child([path], root=_root(ctx), cancelled=ctx.cancelled))


def format_jsonnet(ctx: ToolContext, params: FormatInput) -> str:
    path = sandbox.resolve(ctx.root, params.file_path)
    if not path.is_file():
        raise ToolError(f"{params.file_path} is not a file; give a .jsonnet or .libsonnet file")
    shown = sandbox.relative(ctx.root, path)
    text = sandbox.read_text(path, shown=params.file_path)
    try:
        formatted = format_source(text, shown)
    except FormatError as exc:
        raise ToolError(f"cannot format: {exc}. Fix the syntax error first.") from exc
    if formatted == text:
        return f"{shown} is already formatted; nothing to change."
    return (
        f"Formatted content of {shown} (the file was NOT changed; write this content with "
        f"file_write if you want it):\n{formatted}"
    )


def find_importers(ctx: ToolContext, params: ImportersInput) -> str:
    root = _root(ctx)
    changed: list[str] = []
    deleted: list[str] = []
    for given in params.paths:
        rel = given.removeprefix(DELETED_PREFIX)
        path = sandbox.resolve(ctx.root, rel)
        if path.is_dir():
            raise ToolError(f"{rel} is a directory; list the changed files themselves")
        target = deleted if given.startswith(DELETED_PREFIX) or not path.exists() else changed
        target.append(sandbox.relative(ctx.root, path))
    try:
        found = importers(root, changed, deleted)
    except ImportersError as exc:
        raise ToolError(str(exc)) from exc
    if not found:
        return "No environment is affected by these files."
    lines = [_describe_env(root, Path(p)) for p in found]
    return f"{len(lines)} environment(s) affected:\n" + "\n".join(lines)


def _describe_env(root: Path, entrypoint: Path) -> str:
    env = os.path.relpath(entrypoint.parent, root)
    return env if entrypoint.exists() else f"{env} (its main.jsonnet was deleted)"


TOOLS: list[Tool[Any]] = [
    Tool(
        "tanka_validate_jsonnet",
        "Check a Jsonnet file (or every .jsonnet/.libsonnet file of a directory) without "
        "rendering it: syntax, imports that do not resolve along Tanka's import paths, unknown "
        "variables and other static errors. Returns one 'path:line:col: error: message' per "
        "problem, or '✓ valid'. Call it after every change to a Jsonnet file.",
        ValidateInput,
        validate_jsonnet,
        page_hint="validate one file at a time",
    ),
    Tool(
        "tanka_format_jsonnet",
        "Show how `jsonnetfmt`/`tk fmt` would format a Jsonnet file. Returns the formatted "
        "content; it does NOT modify the file. Says so when the file is already formatted. Only "
        "apply formatting to files you changed, to keep diffs reviewable.",
        FormatInput,
        format_jsonnet,
        page_hint="the file is long: format a smaller file or read it with file_read",
    ),
    Tool(
        "tanka_importers",
        "List the Tanka environments affected by changes to the given files (like `tk tool "
        "importers`): environments whose main.jsonnet imports them directly or through lib/ and "
        "vendor/, plus the environment a non-library file lives in. Use it to decide which "
        "environments to show or diff after editing shared code.",
        ImportersInput,
        find_importers,
    ),
]
