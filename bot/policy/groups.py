"""Who may approve a proposal: pure policy over the settings, plus a short-lived group cache.

With no approvers configured only the session's requester may approve. With approvers (user ids
and user group ids), a listed user or a member of a listed group may; the requester only when
self-approval is allowed. A group whose members cannot be read refuses the approval: an approval
that cannot be checked is never guessed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from bot.domain.ports import ChatError

Members = Callable[[str], frozenset[str]]


class GroupCache:
    """User group members, cached for `ttl` seconds (the lookup is rate-limited by Slack)."""

    def __init__(
        self, lookup: Members, *, ttl: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._lookup = lookup
        self._ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, frozenset[str]]] = {}

    def members(self, group: str) -> frozenset[str]:
        now = self._clock()
        with self._lock:
            hit = self._cache.get(group)
            if hit is not None and now - hit[0] < self._ttl:
                return hit[1]
        members = self._lookup(group)  # ChatError propagates: the caller refuses
        with self._lock:
            self._cache[group] = (now, members)
        return members


def refusal(  # noqa: PLR0911 - one early return per rule reads best
    user: str,
    *,
    requester: str,
    approvers: Sequence[str],
    allow_self: bool,
    members: Members,
) -> str | None:
    """Why `user` may not approve, or None when they may."""
    if not approvers:
        if user == requester:
            return None
        return (
            f"only the requester (<@{requester}>) may approve this session; an operator can "
            "allow others with TANKA_BOT_APPROVERS"
        )
    if user == requester:
        if allow_self:
            return None
        return "requesters may not approve their own sessions here; ask one of the approvers"
    if user in approvers:
        return None
    unchecked = ""  # the first group that could not be read: refuse unless another group admits
    for group in (a for a in approvers if a.startswith("S")):
        try:
            if user in members(group):
                return None
        except ChatError as exc:
            unchecked = unchecked or (
                f"the approver group <!subteam^{group}> could not be checked ({exc}); try again"
            )
    return unchecked or "you are not one of the approvers of this bot (TANKA_BOT_APPROVERS)"
