"""A small Dockerfile reader for rule checks: instructions with ARG defaults resolved.

hadolint checks style; these checks state the project's own rules (non-root, pinned base,
health check, exec-form entry point, no secrets), which hadolint does not know.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: FROM, RUN, ...
    args: str  # the rest, continuation lines joined
    stage: int  # index of the FROM it belongs to; -1 before the first FROM


def parse(text: str) -> list[Instruction]:
    logical: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        logical.append(current + line)
        current = ""
    if current:
        logical.append(current)
    out: list[Instruction] = []
    stage = -1
    for entry in logical:
        keyword, _, args = entry.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            stage += 1
        out.append(Instruction(keyword, args.strip(), stage))
    return out


def arg_defaults(instructions: list[Instruction]) -> dict[str, str]:
    """Defaults of every ARG (global and per stage; a later default wins)."""
    defaults: dict[str, str] = {}
    for ins in instructions:
        if ins.keyword == "ARG" and "=" in ins.args:
            name, _, value = ins.args.partition("=")
            defaults[name.strip()] = value.strip().strip('"')
    return defaults


def expand(value: str, defaults: dict[str, str]) -> str:
    return re.sub(
        r"\$\{(\w+)\}|\$(\w+)",
        lambda m: defaults.get(m.group(1) or m.group(2), m.group(0)),
        value,
    )


def stages(instructions: list[Instruction]) -> list[list[Instruction]]:
    count = max((i.stage for i in instructions), default=-1) + 1
    return [[i for i in instructions if i.stage == n] for n in range(count)]


def exec_form(args: str) -> list[str] | None:
    """The JSON array of an exec-form instruction, or None for shell form."""
    try:
        value = json.loads(args)
    except json.JSONDecodeError:
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    return None


def env_names(args: str) -> list[str]:
    """Names set by one ENV instruction (key=value pairs, or the legacy `ENV key value`)."""
    if "=" not in args.split(" ", 1)[0]:
        return [args.split(" ", 1)[0]]
    return re.findall(r"(?:^|\s)([A-Za-z_]\w*)=", args)
