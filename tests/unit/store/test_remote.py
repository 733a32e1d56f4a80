"""bot.store.remote beyond the store contract (run over it in test_contract.py): what only a
call across the socket shows. The work process's side of the serving process's state."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.errors import Bug
from bot.store.base import StoreUnavailable
from bot.store.remote import Address, Channel, Host


class Kept:
    """A stand-in for what the serving process keeps."""

    def __init__(self) -> None:
        self.closed = False

    def lines(self) -> Iterator[str]:
        yield from ("one", "two")

    def fails(self) -> None:
        raise ValueError("no such environment")

    def unsendable(self) -> object:
        return lambda: None

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def host() -> Iterator[tuple[Host, Kept]]:
    kept = Kept()
    made = Host({"kept": kept})
    made.start()
    yield made, kept
    made.close()


def test_a_generator_arrives_as_its_items(host: tuple[Host, Kept]) -> None:
    # the audit log's read yields its events
    assert Channel(host[0].address).remote("kept").lines() == ["one", "two"]


def test_an_error_in_the_host_is_raised_in_the_caller(host: tuple[Host, Kept]) -> None:
    remote = Channel(host[0].address).remote("kept")
    with pytest.raises(ValueError, match="no such environment"):
        remote.fails()
    with pytest.raises(Bug, match="answer"):
        remote.unsendable()
    with pytest.raises(AttributeError, match="missing"):
        remote.missing()
    assert remote.lines() == ["one", "two"]  # the connection still serves


def test_the_work_process_cannot_close_what_the_serving_process_keeps(
    host: tuple[Host, Kept],
) -> None:
    Channel(host[0].address).remote("kept").close()
    assert not host[1].closed


def test_private_names_are_not_reached(host: tuple[Host, Kept]) -> None:
    with pytest.raises(AttributeError):
        _ = Channel(host[0].address).remote("kept")._objects


def test_a_caller_without_the_key_is_refused(host: tuple[Host, Kept]) -> None:
    wrong = Address(host[0].address.path, b"not the key")
    with pytest.raises(StoreUnavailable):
        Channel(wrong).remote("kept").lines()
    assert Channel(host[0].address).remote("kept").lines() == ["one", "two"]


def test_a_host_gone_is_store_unavailable(host: tuple[Host, Kept]) -> None:
    host[0].close()
    with pytest.raises(StoreUnavailable, match="serving process"):
        Channel(host[0].address).remote("kept").lines()
