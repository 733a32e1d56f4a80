"""Environments whose rendered diffs are the same change, grouped: one diff, the list it applies to.

A change to a shared library can touch hundreds of environments generated from one template.
Their diffs are the same but for each environment's own values: the namespace tk puts on every
object, its name, its spec.json's apiServer... Grouping keeps a proposal readable: the summary
counts groups, environments and resources, and each group's diff is shown once, as its first
environment's real diff.

Two environments share a group when their per-resource unified diffs, their render error (and
whether it already failed at the base) and their appear/disappear change are all equal once each
environment's own values (EnvDiff.identity) are replaced by placeholders. A value counts only as
a whole word (`tenant-1` is not replaced inside `tenant-10`), and values without a letter are
never replaced: `1` or `3` as a namespace would make `replicas: 1 -> 2` and `replicas: 3 -> 2`
look like one change. Anything else that differs keeps environments apart. Groups keep the order
of their first environment.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tools.tanka.diff.resources import Change, EnvDiff

ENVS_NAMED = 20  # environments named in a group's summary line before "and N more"


@dataclass(frozen=True, slots=True)
class EnvGroup:
    envs: tuple[EnvDiff, ...]  # at least one; all with the same diff

    @property
    def first(self) -> EnvDiff:
        return self.envs[0]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.env for e in self.envs)

    @property
    def resources(self) -> int:
        """Resources changed in each environment of the group."""
        return len(self.first.resources)

    def unified(self) -> str:
        return self.first.unified()

    def summary(self) -> str:
        """One environment: its own summary. Several: the count, their names, the resources."""
        first = self.first
        if len(self.envs) == 1:
            return first.summary()
        if first.already_failing:
            head = f"{len(self.envs)} environments: already failing at the base: "
            head += first.base_failure
        elif first.error is not None:
            head = f"{len(self.envs)} environments: cannot render: {first.error}"
        else:
            counts = ", ".join(f"{first.count(c)} {c.value}" for c in Change)
            head = f"{len(self.envs)} environments: {counts} each"
            if first.env_change is not None:
                head += f" (environments {first.env_change.value})"
        lines = [head, f"  {named(self.names)}"]
        lines += [f"  {r.change.value:<8} {r.key.label()}" for r in first.resources]
        return "\n".join(lines)


def named(names: Sequence[str], limit: int = ENVS_NAMED) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def group_envs(envs: Sequence[EnvDiff]) -> list[EnvGroup]:
    """The environments with changes or errors, grouped by the same diff but for their own
    values."""
    groups: dict[tuple[bool, str | None, Change | None, str], list[EnvDiff]] = {}
    for env in envs:
        if not env.has_changes and env.error is None:
            continue
        own = _own_values(env)
        error = own(env.error) if env.error is not None else None
        key = (env.already_failing, error, env.env_change, own(env.unified()))
        groups.setdefault(key, []).append(env)
    return [EnvGroup(tuple(members)) for members in groups.values()]


def _own_values(env: EnvDiff) -> Callable[[str], str]:
    """A function putting a placeholder for its field in place of each of the environment's own
    values in a text."""
    placeholders: dict[str, str] = {}
    for field, value in env.identity:
        if "\0" not in value and any(c.isalpha() for c in value):
            # Digits between NULs: no value (it has a letter) can be found inside one.
            placeholders.setdefault(value, f"\0{_FIELDS.setdefault(field, len(_FIELDS))}\0")
    # Longest first, so `environments/cell-1` is replaced whole before `cell-1`.
    values = sorted(placeholders, key=len, reverse=True)

    def own(text: str) -> str:
        for value in values:
            if value in text:
                text = _replace_words(text, value, placeholders[value])
        return text

    return own


_FIELDS: dict[str, int] = {}  # an identity field's number in placeholders
_WORD = frozenset(string.ascii_letters + string.digits)


def _replace_words(text: str, value: str, by: str) -> str:
    """`text` with `value` replaced by `by` wherever no letter or digit touches it. (A regular
    expression per environment would do the same; compiling 2,000 of them costs seconds.)"""
    parts: list[str] = []
    start, at = 0, text.find(value)
    while at != -1:
        end = at + len(value)
        if (at == 0 or text[at - 1] not in _WORD) and (end == len(text) or text[end] not in _WORD):
            parts += (text[start:at], by)
            start, at = end, text.find(value, end)
        else:
            at = text.find(value, at + 1)
    parts.append(text[start:])
    return "".join(parts)


def overview(groups: Sequence[EnvGroup]) -> str:
    """e.g. `300 environments in 4 groups, 300 resources changed; ...`."""
    envs = sum(len(g.envs) for g in groups)
    resources = sum(len(g.envs) * g.resources for g in groups)
    count = len(groups)
    return (
        f"{envs} environments in {count} group{'s' if count > 1 else ''}, {resources} resources "
        "changed; within a group the diffs differ only in each environment's own name, namespace "
        "and spec.json values"
    )


def grouped_summary(groups: Sequence[EnvGroup]) -> str:
    """The per-group summary, after the overview when environments share a group (otherwise the
    per-environment summary)."""
    if not groups:
        return "No differences.\n"
    lines = [g.summary() for g in groups]
    if any(len(g.envs) > 1 for g in groups):
        lines.insert(0, overview(groups))
    return "\n".join(lines) + "\n"


def grouped_text(groups: Sequence[EnvGroup]) -> str:
    """The summary, then each group's diff once, under a heading naming its environments."""
    parts = [grouped_summary(groups)]
    for group in groups:
        if not group.first.has_changes:
            continue
        heading = (
            group.first.env
            if len(group.envs) == 1
            else (
                f"{len(group.envs)} environments: {named(group.names)}\n"
                f"# (the diff of {group.first.env}; the others differ only in their own values)"
            )
        )
        parts.append(f"\n# {heading}\n{group.unified()}")
    return "".join(parts)
