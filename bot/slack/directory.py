"""Who is who in the workspace, for the web view's sign-in and its visibility: the workspace's
id, a person found by email, channel and group members (the Web API through SlackChatClient's
one error translation)."""

from __future__ import annotations

from bot.domain.ports import ChatError
from bot.slack.client import SlackChatClient


class SlackDirectory(SlackChatClient):
    def workspace_id(self) -> str:
        """The bot's workspace (auth.test)."""
        return str(self._call("auth.test").get("team_id") or "")

    def user_by_email(self, email: str) -> str | None:
        """The workspace member with this email (users.lookupByEmail), or None."""
        try:
            data = self._call("users.lookupByEmail", email=email)
        except ChatError as exc:
            if "users_not_found" in str(exc):
                return None
            raise
        user = data.get("user")
        return str(user.get("id") or "") or None if isinstance(user, dict) else None
