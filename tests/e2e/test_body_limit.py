"""The body limit is the server's own: `tanka-bot serve` answers a body over MAX_BODY before it
reads it, on every POST route, whether the body declares its length or comes chunked, and holds
no large temporary file meanwhile.

Clients here have no credentials and stream far more than the limit over real loopback sockets
with a small send buffer, so the bytes a client managed to send bound what the server accepted:
without the server's limit (waitress's default is 1 GiB) every byte was read and buffered on
disk before the app refused it.
"""

from __future__ import annotations

import os
import select
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.inbound.http import MAX_BODY
from tests.e2e.harness import Bot, stack

ROUTES = ["/slack/events", "/github/webhook", "/alerts/alertmanager"]
STREAMED = 64 << 20  # what each client would send: 64 times the limit
ANSWERED_BEFORE = 4 << 20  # a client is answered before it has sent this much
PIECE = 1 << 16
# The most a connection may hold spilled on disk: the limit, and one read of waitress's (8 KiB
# by default) that crossed it, until waitress closes the refused request's buffer.
SPILL_BOUND = MAX_BODY + (64 << 10)


@dataclass(frozen=True)
class Served:
    bot: Bot
    tmp: Path  # the bot's TMPDIR: where waitress spills bodies


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("limit")
    spill = tmp / "bot-tmp"
    spill.mkdir()
    with stack(tmp) as s:
        bot = s.start_bot({"TANKA_BOT_ALERTS_TOKEN": "am-token-limit", "TMPDIR": str(spill)})
        yield Served(bot, spill)


class Streamer:
    """One client without credentials posting a huge body, a piece at a time."""

    def __init__(self, port: int, path: str, *, chunked: bool) -> None:
        self.chunked = chunked
        self.sent = 0  # body bytes (with chunk framing) the socket took
        self.sock = socket.socket()
        # A small, fixed send buffer: what the socket took is what the server's side accepted
        # plus at most this buffer and the server's unread receive window.
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, PIECE)
        self.sock.connect(("127.0.0.1", port))
        length = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: %d" % STREAMED
        self.sock.sendall(b"POST %s HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
                          b"%s\r\n\r\n" % (path.encode(), length))  # fmt: skip
        self.sock.setblocking(False)
        self._pending = b""

    def stream(self, upto: int) -> str | None:
        """Send until `upto` body bytes are sent or an answer arrives; the answer's status line
        (or why the connection ended), or None when `upto` was reached unanswered."""
        piece = b"{" * PIECE
        framed = b"%x\r\n%s\r\n" % (PIECE, piece) if self.chunked else piece
        while self.sent < upto:
            readable, writable, _ = select.select([self.sock], [self.sock], [], 60)
            assert readable or writable, "the server neither answered nor read for 60 s"
            if readable:
                return self.answer()
            self._pending = self._pending or framed
            try:
                taken = self.sock.send(self._pending)
            except OSError as exc:  # reset after the server answered and closed
                return self.answer() if select.select([self.sock], [], [], 0)[0] else repr(exc)
            self._pending = self._pending[taken:]
            self.sent += taken
        return None

    def answer(self) -> str:
        self.sock.setblocking(True)
        self.sock.settimeout(60)
        got = b""
        try:
            while b"\r\n" not in got and (data := self.sock.recv(4096)):
                got += data
        except OSError as exc:
            return got.decode(errors="replace") or repr(exc)
        return got.split(b"\r\n", 1)[0].decode()

    def close(self) -> None:
        self.sock.close()


def spilled(served: Served) -> dict[str, int]:
    """The temporary files the bot holds open (waitress's spilled bodies) and their sizes."""
    fds = Path(f"/proc/{served.bot.process.pid}/fd")
    sizes = {}
    for fd in fds.iterdir():
        try:
            target = os.readlink(fd)
            if target.startswith(str(served.tmp)):
                sizes[f"{fd.name} {target}"] = fd.stat().st_size
        except OSError:
            continue  # closed meanwhile
    return sizes


def healthz(bot: Bot) -> int:
    with urllib.request.urlopen(bot.url + "/healthz", timeout=30) as response:  # noqa: S310
        return int(response.status)


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("path", ROUTES)
def test_a_huge_body_without_credentials_is_refused_before_it_is_read(
    served: Served, path: str, chunked: bool
) -> None:
    client = Streamer(served.bot.port, path, chunked=chunked)
    try:
        answer = client.stream(STREAMED)
        assert answer is not None, f"no answer after the whole {STREAMED}-byte body"
        assert answer.startswith("HTTP/1.1 413"), answer
        # Answered after at most the limit and the sockets' buffers, not the 64 MiB.
        assert client.sent < ANSWERED_BEFORE, client.sent
        assert all(size <= SPILL_BOUND for size in spilled(served).values()), spilled(served)
    finally:
        client.close()
    assert healthz(served.bot) == 200


def test_healthz_answers_while_six_clients_stream_and_none_holds_more_than_the_limit(
    served: Served,
) -> None:
    clients = [Streamer(served.bot.port, path, chunked=True) for path in ROUTES * 2]
    try:
        # Each sends most of the limit (past waitress's 512 KiB in memory) and keeps its
        # connection open with its body unfinished.
        for client in clients:
            assert client.stream(3 * MAX_BODY // 4) is None
        assert healthz(served.bot) == 200
        assert all(size <= SPILL_BOUND for size in spilled(served).values()), spilled(served)
        # Then each goes on past the limit and is refused.
        for client in clients:
            answer = client.stream(STREAMED)
            assert answer is not None
            assert answer.startswith("HTTP/1.1 413"), answer
            assert client.sent < ANSWERED_BEFORE, client.sent
        assert healthz(served.bot) == 200
    finally:
        for client in clients:
            client.close()


def post(bot: Bot, path: str, body: bytes) -> int:
    request = urllib.request.Request(bot.url + path, data=body, method="POST")  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_body_of_exactly_the_limit_reaches_the_app(served: Served) -> None:
    # The app reads it, and refuses the missing signature.
    assert post(served.bot, "/slack/events", b"{" * MAX_BODY) == 401
    # One byte more is refused on its headers alone: no byte of the body is sent.
    with socket.create_connection(("127.0.0.1", served.bot.port), timeout=60) as sock:
        sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Length: %d\r\n\r\n"
                     % (MAX_BODY + 1))  # fmt: skip
        assert sock.recv(4096).startswith(b"HTTP/1.1 413 ")
