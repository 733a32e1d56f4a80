"""Waivers: a failing policy rule (Rego `deny`/`violation`) blocks approval until its owners
(`policy_owners` in the settings file) waive it for the thread, with a reason and an expiry.
Schema errors are not rules anyone owns: they cannot be waived. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.store.guard_store import Grant

WAIVER = "waiver"


def waived(grants: Sequence[Grant]) -> frozenset[str]:
    """The rules live waivers lift (the store returns only unexpired grants)."""
    return frozenset(g.subject for g in grants if g.kind == WAIVER)


def blocking(denied: Sequence[str], grants: Sequence[Grant]) -> list[str]:
    """The proposal's denying rules that no live waiver lifts."""
    lifted = waived(grants)
    return sorted({r for r in denied if r not in lifted})


def owners(rule: str, policy_owners: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    return tuple(policy_owners.get(rule, ()))


def listed(grants: Sequence[Grant], denied: Sequence[str]) -> list[Grant]:
    """The live waivers that lifted one of `denied`: what the pull request lists."""
    return [g for g in grants if g.kind == WAIVER and g.subject in denied]
