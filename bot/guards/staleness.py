"""Stale proposals: a proposal is stale when the base branch moved since it was made and the
move changed a file one of its environments reads. Pure: the caller (bot.handlers.guard_stale)
fetches the base, lists what the move changed and asks the importers analysis which
environments read those files; this decides."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True, slots=True)
class Moved:
    head: str  # the base branch's newest commit
    files: tuple[str, ...]  # what the move changed
    envs: tuple[str, ...]  # the proposal's environments that read one of them ((): not known)


def touched(envs: Sequence[str] | None, readers: Iterable[str]) -> tuple[str, ...] | None:
    """The proposal's environments among those whose entrypoints (`readers`, `main.jsonnet`
    paths relative to the repository) read a moved file: () when none; None when the
    proposal's environments are not known (stale: it must be rendered again to know)."""
    if envs is None:
        return None
    read = {PurePosixPath(r).parent.as_posix() for r in readers}
    return tuple(sorted(read.intersection(envs)))


def stale(head: str, base: str, files: Sequence[str], envs: tuple[str, ...] | None) -> Moved | None:
    """The move that makes a proposal on `base` stale, or None."""
    if head == base:
        return None
    if envs is None:
        return Moved(head, tuple(files), ())
    return Moved(head, tuple(files), envs) if envs else None
