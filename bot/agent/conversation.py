"""A conversation: the history one Slack thread (or one chat REPL) carries from turn to turn.

It holds only frozen messages and counters, so an idle session costs little memory; the Slack
layer stores and reloads it, `tanka-bot chat` keeps one per REPL. One turn at a time: callers
serialise turns (the runner's per-thread lock, the REPL's single thread).
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.agent.messages import Message, Usage


class Conversation:
    __slots__ = ("history", "turns", "usage")

    def __init__(
        self, history: Iterable[Message] = (), *, usage: Usage | None = None, turns: int = 0
    ) -> None:
        self.history: tuple[Message, ...] = tuple(history)
        self.usage = usage or Usage()  # every token this conversation has cost, /clear included
        self.turns = turns

    def record(self, messages: Iterable[Message], usage: Usage) -> None:
        """Append a finished turn's messages and count its tokens."""
        self.history = (*self.history, *messages)
        self.usage = self.usage + usage
        self.turns += 1

    def clear(self) -> None:
        """Forget the history (a fresh start for the model); the token count stays."""
        self.history = ()

    def __repr__(self) -> str:
        return (
            f"Conversation(messages={len(self.history)}, turns={self.turns}, "
            f"tokens={self.usage.total})"
        )
