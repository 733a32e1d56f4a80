"""Who sees what: a person sees the sessions of channels they are a member of
(conversations.members, cached briefly as the Home tab does); admins (users or user groups of
the settings file's `admins`) see every channel. Unknown membership shows nothing (fail closed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from bot.domain.ports import ChatError

log = logging.getLogger(__name__)

Members = Callable[[str], frozenset[str]]


class Access:
    def __init__(self, admins: Iterable[str], *, channel_members: Members,
                 group_members: Members) -> None:  # fmt: skip
        self._admins = tuple(admins)
        self._channel_members = channel_members  # cached by the caller (GroupCache)
        self._group_members = group_members

    def is_admin(self, user: str) -> bool:
        if user in self._admins:
            return True
        for group in (a for a in self._admins if a.startswith("S")):
            try:
                if user in self._group_members(group):
                    return True
            except ChatError as exc:
                log.info("web: members of group %s unknown: %s", group, exc)
        return False

    def sees(self, user: str, channel: str) -> bool:
        try:
            return user in self._channel_members(channel)
        except ChatError as exc:
            log.info("web: members of %s unknown, hidden: %s", channel, exc)
            return False

    def channels(self, user: str, among: Iterable[str]) -> frozenset[str] | None:
        """The channels of `among` that `user` sees; None: every channel (an admin)."""
        if self.is_admin(user):
            return None
        return frozenset(c for c in among if self.sees(user, c))
