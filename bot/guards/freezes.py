"""Freezes: windows during which an environment's proposals may not become pull requests.

Two sources, one answer: the settings file's windows (fixed or recurring, bot.guards.config)
and the ad hoc freezes admins set with `/tanka freeze` (kept in the guard store, so every replica
sees the same). Pure given the store's records and `now`.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.guards.config import GuardSettings
from bot.guards.windows import iso
from bot.store.guard_store import FreezeRecord


@dataclass(frozen=True, slots=True)
class ActiveFreeze:
    glob: str
    reason: str
    until: float
    by: str = ""  # the admin of an ad hoc freeze; "" for the settings file's


@dataclass(frozen=True, slots=True)
class Frozen:
    """An environment of a proposal and the freeze that holds it (the one ending last)."""

    env: str
    freeze: ActiveFreeze

    def text(self) -> str:
        f = self.freeze
        return f"`{self.env}` is frozen until {iso(f.until)} ({f.reason})"


def active(
    settings: GuardSettings, records: Iterable[FreezeRecord], now: float
) -> list[ActiveFreeze]:
    """Every freeze in force at `now`, one per glob and source."""
    found = []
    for window in settings.freezes:
        held = window.active(now)
        if held is not None:
            found += [ActiveFreeze(g, window.reason, held.end) for g in window.envs]
    found += [
        ActiveFreeze(r.glob, r.reason, r.until, r.by) for r in records if r.start <= now < r.until
    ]
    return found


def env_dir(env: str) -> str:
    """An environment label's directory (`environments/a [name]` -> `environments/a`)."""
    return env.split(" [", 1)[0]


def frozen(envs: Sequence[str] | None, freezes: Sequence[ActiveFreeze]) -> list[Frozen]:
    """The environments `freezes` hold, each with the freeze that ends last; `envs` None (not
    known) is held by every freeze, since it may be any environment (fail closed)."""
    if envs is None:
        return [Frozen("(environments unknown)", f) for f in _latest_first(freezes)[:1]]
    out = []
    for env in sorted({env_dir(e) for e in envs}):
        hits = [f for f in freezes if fnmatch.fnmatchcase(env, f.glob)]
        if hits:
            out.append(Frozen(env, _latest_first(hits)[0]))
    return out


def _latest_first(freezes: Sequence[ActiveFreeze]) -> list[ActiveFreeze]:
    return sorted(freezes, key=lambda f: f.until, reverse=True)


def summary(hits: Sequence[Frozen], limit: int = 5) -> str:
    shown = "; ".join(h.text() for h in hits[:limit])
    return shown + (f"; and {len(hits) - limit} more" if len(hits) > limit else "")
