"""Environments whose rendered diffs are identical, grouped: one diff, the list it applies to.

A change to a shared library can touch hundreds of environments generated from the same code;
most of their diffs are byte-identical. Grouping keeps a proposal readable: the summary counts
environments and resources per group, and each distinct diff is shown once. Two environments
share a group when their per-resource unified diffs, their render error (and whether it
already failed at the base) and their appear/disappear change are all equal. Groups keep the
order of their first environment.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    """The environments with changes or errors, grouped by identical diff."""
    groups: dict[tuple[bool, str | None, Change | None, str], list[EnvDiff]] = {}
    for env in envs:
        if not env.has_changes and env.error is None:
            continue
        key = (env.already_failing, env.error, env.env_change, env.unified())
        groups.setdefault(key, []).append(env)
    return [EnvGroup(tuple(members)) for members in groups.values()]


def grouped_summary(groups: Sequence[EnvGroup]) -> str:
    """The per-group summary (the per-environment one when no two environments share a diff)."""
    if not groups:
        return "No differences.\n"
    return "\n".join(g.summary() for g in groups) + "\n"


def grouped_text(groups: Sequence[EnvGroup]) -> str:
    """The summary, then each group's diff once, under a heading naming its environments."""
    parts = [grouped_summary(groups)]
    for group in groups:
        if not group.first.has_changes:
            continue
        heading = (
            group.first.env
            if len(group.envs) == 1
            else (f"{len(group.envs)} environments: {named(group.names)}")
        )
        parts.append(f"\n# {heading}\n{group.unified()}")
    return "".join(parts)
