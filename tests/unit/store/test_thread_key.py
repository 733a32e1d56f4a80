"""ThreadKey: the session key, and its one text form that stores use."""

from __future__ import annotations

import pytest

from bot.domain.thread import ThreadKey


def test_id_and_parse_are_inverse() -> None:
    key = ThreadKey("C0123", "1700000000.000100")
    assert key.id == "C0123:1700000000.000100"
    assert str(key) == key.id
    assert ThreadKey.parse(key.id) == key


def test_keys_are_values() -> None:
    assert ThreadKey("C1", "1.2") == ThreadKey("C1", "1.2")
    assert len({ThreadKey("C1", "1.2"), ThreadKey("C1", "1.2"), ThreadKey("C2", "1.2")}) == 2
    with pytest.raises(AttributeError):
        ThreadKey("C1", "1.2").channel = "C2"  # type: ignore[misc]


@pytest.mark.parametrize("text", ["", "C1", "C1:", ":1.2", "C1:1.2:3", "C1 1.2"])
def test_parse_refuses_what_is_not_a_key(text: str) -> None:
    with pytest.raises(ValueError, match="not a thread key") as caught:
        ThreadKey.parse(text)
    assert "<channel>:<thread_ts>" in str(caught.value)


@pytest.mark.parametrize(("channel", "thread_ts"), [("", "1.2"), ("C1", ""), ("C:1", "1.2")])
def test_a_key_whose_id_would_be_ambiguous_cannot_be_made(channel: str, thread_ts: str) -> None:
    with pytest.raises(ValueError, match="must be non-empty and contain no ':'"):
        ThreadKey(channel, thread_ts)
