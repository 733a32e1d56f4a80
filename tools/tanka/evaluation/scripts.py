"""The Jsonnet wrappers tk evaluates around an inline environment's entrypoint.

Listing and selecting inline environments must not fail on resources outside them, so the
entrypoint is wrapped in a script that walks its value: objects with `apiVersion` and `kind` are
kept only when they are Environments (optionally only those whose name contains the given name),
everything else becomes `{}`. Listing hides `data` and prunes the empties (tk's
MetadataEvalScript); loading one environment keeps it whole (SingleEnvEvalScript). Unlike tk, the
name is quoted as a string literal, so a name with a quote cannot change the script.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import Enum


class Mode(Enum):
    LIST = "list"  # every Environment, data hidden, pruned
    PEEK = "peek"  # Environments whose name contains NAME, data hidden, pruned
    LOAD = "load"  # Environments whose name contains NAME, whole, not pruned


def probe_script(entrypoint: str) -> str:
    """True when the entrypoint's top level is a function (it then takes the TLAs)."""
    return f"std.isFunction(import {_literal(entrypoint)})"


def eval_script(
    entrypoint: str, mode: Mode, *, name: str = "", tlas: Sequence[str] = (), is_function: bool
) -> str:
    """The wrapper for `mode`; with a function entrypoint, a function forwarding the TLAs."""
    target = f"(import {_literal(entrypoint)})"
    if is_function:
        params = ", ".join(tlas)
        forwarded = ", ".join(f"{t}={t}" for t in tlas)
        head = f"function({params})\n  local main = {target}({forwarded});\n"
    else:
        head = f"local main = {target};\n"
    return head + _body(mode, name)


def pattern_script(
    entrypoint: str, expression: str, *, tlas: Sequence[str] = (), is_function: bool
) -> str:
    """tk eval -e: `main<expr>` when the expression starts with `[`, else `main.<expr>`,
    wrapped like the other scripts (a function entrypoint is called with the TLAs by name)."""
    body = f"main{expression}" if expression.startswith("[") else f"main.{expression}"
    target = f"(import {_literal(entrypoint)})"
    if is_function:
        params = ", ".join(tlas)
        forwarded = ", ".join(f"{t}={t}" for t in tlas)
        return f"function({params})\n  local main = {target}({forwarded});\n  {body}\n"
    return f"local main = {target};\n{body}\n"


def _body(mode: Mode, name: str) -> str:
    matches = "true" if mode is Mode.LIST else f"std.member(v.metadata.name, {_literal(name)})"
    shape = {Mode.LIST: "v { data+:: {} }", Mode.PEEK: "v { data:: super.data }"}.get(mode, "v")
    walk = (
        "local pick(v) =\n"
        "  if std.isObject(v) then\n"
        "    if std.objectHas(v, 'apiVersion') && std.objectHas(v, 'kind') then\n"
        f"      if v.kind == 'Environment' && {matches} then {shape} else {{}}\n"
        "    else std.mapWithKey(function(_, field) pick(field), v)\n"
        "  else if std.isArray(v) then std.map(pick, v)\n"
        "  else {};\n"
    )
    result = "pick(main)" if mode is Mode.LOAD else "std.prune(pick(main))"
    return walk + result + "\n"


def _literal(text: str) -> str:
    # A JSON string is a valid Jsonnet string literal with the same meaning.
    return json.dumps(text)
