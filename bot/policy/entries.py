"""The settings file's lists of entries (approval rules, alert routes, freezes, budgets): each
entry a mapping of known fields, every problem named by where it stands."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any


def entries(
    raw: object, key: str, fields: Collection[str], problems: list[str], *, expected: str,
    kind: str = "",
) -> Iterator[tuple[int, str, Mapping[str, Any]]]:  # fmt: skip
    """Each mapping in the list `raw` (the file's `key`) with its index and where it stands
    (`key[index]`). A value that is not a list is reported as `expected` ("a list of rules
    (envs, ...)"); an entry that is not a mapping is skipped, and an unknown field (of the
    `kind`, "rule", "route" or none, named in the line) reported, in `problems`."""
    if not isinstance(raw, list):
        problems.append(f"{key}: must be {expected}")
        return
    known = ", ".join(fields)
    noun = f"{kind} field" if kind else "field"
    for index, value in enumerate(raw):
        where = f"{key}[{index}]"
        if not isinstance(value, Mapping):
            problems.append(f"{where}: must be a mapping of {known}")
            continue
        for unknown in sorted(str(k) for k in value if k not in fields):
            problems.append(f"{where}.{unknown}: unknown {noun}; use {known}")
        yield index, where, value
