"""The one place an approval asks every guard (bot.handlers.approve calls it after the approval
rules): freezes, failing policies without a waiver, and other pull requests' holds. Staleness
needs git and is asked by the handler (bot.handlers.guard_stale). Each refusal says what would
let the approval pass and who can do it.

Fail closed: the store's StoreUnavailable reaches the caller, which refuses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.guards import freezes, holds, waivers
from bot.guards.config import GuardSettings
from bot.guards.people import admins_text, names
from bot.store.guard_store import GuardStore

# Bounded labels of /metrics' refusals by guard.
GUARDS = ("freeze", "waiver", "hold", "stale", "budget")
OVERRIDE = "override"


@dataclass(frozen=True, slots=True)
class Refusal:
    guard: str  # one of GUARDS
    text: str


@dataclass(frozen=True, slots=True)
class Asked:
    """What the gate needs of a proposal and its thread."""

    thread: str  # ThreadKey.id
    proposal_ts: str
    envs: tuple[str, ...] | None  # the environments it changes; None: not known
    denied: tuple[str, ...]  # the policy rules that denied it


def refusal(
    asked: Asked, settings: GuardSettings, admins: Sequence[str], store: GuardStore, now: float
) -> Refusal | None:
    grants = store.grants(asked.thread)
    hits = freezes.frozen(asked.envs, freezes.active(settings, store.freezes(), now))
    overridden = any(g.kind == OVERRIDE and g.subject == asked.proposal_ts for g in grants)
    if hits and not overridden:
        return Refusal(
            "freeze",
            f"{freezes.summary(hits)}. It can be approved once the freeze "
            f"ends, or after {admins_text(admins)} replies `override REASON` in this "
            "thread",
        )
    blocked = waivers.blocking(asked.denied, grants)
    if blocked:
        return Refusal("waiver", _policy_text(blocked, settings.policy_owners))
    held = holds.conflicts(store.holds(), asked.envs, asked.thread)
    if held:
        return Refusal(
            "hold",
            f"{holds.text(held)}, opened from another thread: one bot pull "
            "request per environment. This proposal waits; when that pull request is "
            "merged or closed (by its reviewers on GitHub), I rebase this thread and "
            "propose again",
        )
    return None


def _policy_text(blocked: Sequence[str], owners: Mapping[str, Sequence[str]]) -> str:
    parts = []
    for rule in blocked:
        who = waivers.owners(rule, owners)
        way = (
            f"{names(who)} may reply `waive {rule} REASON [for 7d]`"
            if who
            else "nobody may waive it (no `policy_owners` entry names it)"
        )
        parts.append(f"policy `{rule}` denies this change: {way}")
    return "; ".join(parts) + "; or change it so the policy passes and approve the new proposal"
