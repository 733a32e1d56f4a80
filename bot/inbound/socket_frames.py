"""A bound on what one WebSocket frame may bring into the bot, read off the socket itself.

slack_sdk's builtin Socket Mode client (the one Bolt's `SocketModeHandler` uses) has no message
size limit: it reads a frame of any declared length into memory, 1 KiB at a time. `FrameLimit`
wraps the connection's socket and follows the frames' headers in the bytes it hands over; a
frame that declares more payload than the limit is never read: everything before it is handed
over, then `recv` raises `FrameTooLarge` (an OSError, which makes the client drop the connection
and open a new one). The builtin client does not join fragmented messages (it ignores
continuation frames), so a bound per frame is a bound per message.
"""

from __future__ import annotations

import errno
import struct
from typing import Any, Protocol

from bot.errors import UserError

# Header sizes (RFC 6455, section 5.2): two bytes, then 2 or 8 of extended length, then a mask.
_EXTENDED = {126: 2, 127: 8}
_MASK = 4
# slack_sdk's handshake reading leaves the response's last "\n" on the socket and its frame
# reader skips it. No frame starts with this byte (a control frame is never fragmented).
_HANDSHAKE_TAIL = 0x0A


class RawSocket(Protocol):
    def recv(self, size: int, /) -> bytes: ...

    def close(self) -> None: ...


class FrameTooLarge(UserError, OSError):
    """The peer sent more than the limit. An OSError too: that is what makes slack_sdk's client
    drop the connection and reconnect."""

    def __init__(self, length: int, limit: int) -> None:
        super().__init__(
            errno.EMSGSIZE, f"a WebSocket frame of {length} bytes is over the limit of {limit}"
        )
        self.length = length
        self.limit = limit


class FrameLimit:
    """The socket, minus any frame whose declared payload is over `limit` bytes."""

    def __init__(self, sock: RawSocket, limit: int) -> None:
        self._sock = sock
        self.limit = limit
        self._held = b""  # the start of a frame header, kept until its length is known
        self._payload_left = 0  # bytes of the current frame's payload still to come
        self.refused: FrameTooLarge | None = None

    def recv(self, size: int, /) -> bytes:
        """Up to `size` bytes and the held header; never a byte of an oversized frame."""
        while True:
            if self.refused is not None:
                raise self.refused
            new = self._sock.recv(size)
            if not new:
                return new  # the peer closed the connection
            data, self._held = self._held + new, b""
            passed = self._follow(data)
            if self.refused is not None:
                self._sock.close()  # the rest of that frame is not read, not even by the kernel
            if passed:
                return data[:passed]

    def close(self) -> None:
        self._sock.close()

    def __getattr__(self, name: str) -> Any:
        # send, settimeout, fileno...: the socket's own.
        return getattr(self._sock, name)

    def _follow(self, data: bytes) -> int:
        """How many of `data`'s bytes may be handed over now; a header whose length is not yet
        known is held back, and `refused` is set at a frame over the limit."""
        at = 0
        while at < len(data):
            if self._payload_left:
                step = min(self._payload_left, len(data) - at)
                self._payload_left -= step
                at += step
                continue
            if data[at] == _HANDSHAKE_TAIL:
                at += 1  # as the client reads it: a byte on its own, not a frame
                continue
            size = _header_size(data[at : at + 2])
            if len(data) - at < size or _header_size(data[at : at + size]) > size:
                self._held = data[at:]
                return at
            length = _payload_length(data[at : at + size])
            if length > self.limit:
                self.refused = FrameTooLarge(length, self.limit)
                return at
            self._payload_left = length
            at += size
        return at


def _header_size(header: bytes | bytearray) -> int:
    """The whole header's size, as far as `header`'s first bytes tell."""
    if len(header) < 2:
        return 2
    return 2 + _EXTENDED.get(header[1] & 0x7F, 0) + (_MASK if header[1] & 0x80 else 0)


def _payload_length(header: bytes | bytearray) -> int:
    short = header[1] & 0x7F
    if short == 126:
        return int(struct.unpack("!H", header[2:4])[0])
    if short == 127:
        return int(struct.unpack("!Q", header[2:10])[0])
    return short
