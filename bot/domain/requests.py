"""What people ask the bot in Slack, as values: a mention, a thread reply, a reaction, `/tanka`.

bot.inbound.slack_payloads parses Slack's payloads into these; bot.runtime and bot.handlers act on
them. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain.thread import ThreadKey


@dataclass(frozen=True, slots=True)
class Mention:
    """`@bot request`: starts a session in the message's thread or continues that thread's."""

    channel: str
    user: str
    text: str  # the request with the bot's mention removed
    ts: str
    thread_ts: str | None
    # The session's title (its PR's title and branch) when the text's first line is not one: a
    # shortcut's request opens with "About this message..."; "" for a plain mention.
    title: str = ""

    @property
    def key(self) -> ThreadKey:
        return ThreadKey(self.channel, self.thread_ts or self.ts)


@dataclass(frozen=True, slots=True)
class ThreadReply:
    """A human reply in a thread, without a mention: continues the session if there is one."""

    channel: str
    user: str
    text: str
    ts: str
    thread_ts: str

    @property
    def key(self) -> ThreadKey:
        return ThreadKey(self.channel, self.thread_ts)


@dataclass(frozen=True, slots=True)
class Reaction:
    """An emoji added (or removed) on a message; the thread is found from the message's ts."""

    channel: str
    user: str
    name: str  # without colons or skin tone
    item_ts: str
    added: bool
    # Slack's `event_ts` of the add or removal: deliveries come in any order, and the latest
    # of a person's marks on a message is the one that stands (bot.store, add_member).
    at: float
    item_user: str = ""  # who wrote the reacted message, as Slack says ("" when it does not)


@dataclass(frozen=True, slots=True)
class SlashCommand:
    channel: str
    user: str
    command: str
    text: str


Inbound = Mention | ThreadReply | Reaction
