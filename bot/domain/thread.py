"""Domain values shared by the service's layers."""

from __future__ import annotations

from dataclasses import dataclass

_SEPARATOR = ":"


@dataclass(frozen=True, slots=True)
class ThreadKey:
    """A Slack thread: the session key.

    `id` is `"<channel>:<thread_ts>"`, the form stores and logs use. Neither part may be empty
    or contain a colon, so every key has exactly one id and every id exactly one key.
    """

    channel: str
    thread_ts: str

    def __post_init__(self) -> None:
        for field, value in (("channel", self.channel), ("thread_ts", self.thread_ts)):
            if not value or _SEPARATOR in value:
                raise ValueError(
                    f"ThreadKey {field} must be non-empty and contain no ':', got {value!r}"
                )

    @property
    def id(self) -> str:
        return f"{self.channel}{_SEPARATOR}{self.thread_ts}"

    @classmethod
    def parse(cls, text: str) -> ThreadKey:
        """The key whose `id` is `text`; ValueError when `text` is not `<channel>:<thread_ts>`."""
        channel, sep, thread_ts = text.partition(_SEPARATOR)
        if not sep or not channel or not thread_ts or _SEPARATOR in thread_ts:
            raise ValueError(
                f"not a thread key: {text!r} (expected '<channel>:<thread_ts>', "
                "e.g. 'C0123:1700000000.000100')"
            )
        return cls(channel, thread_ts)

    def __str__(self) -> str:
        return self.id
