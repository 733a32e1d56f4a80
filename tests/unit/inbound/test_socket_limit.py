"""Socket Mode reads no frame over the body limit: `FrameLimit` on its own, then the bot's handler
against the local Socket Mode server, which starts a frame far over the limit."""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
from slack_bolt import App
from slack_sdk import WebClient

from bot.inbound.http import MAX_BODY
from bot.inbound.slack_socket import CheckedSocketModeHandler
from bot.inbound.socket_frames import FrameLimit, FrameTooLarge
from bot.telemetry.metrics import Metrics
from fakes import slack_events as events
from fakes.slack_server import SlackServer


class Feed:
    """A socket that hands over prepared pieces, one per recv."""

    def __init__(self, *pieces: bytes) -> None:
        self.pieces = list(pieces)
        self.closed = False

    def recv(self, size: int, /) -> bytes:
        return self.pieces.pop(0) if self.pieces else b""

    def close(self) -> None:
        self.closed = True


def frame(payload: bytes, *, masked: bool = False, length: int | None = None) -> bytes:
    """A text frame's header (declaring `length`, default the payload's) and the payload."""
    size = len(payload) if length is None else length
    mask = 0x80 if masked else 0
    if size < 126:
        head = bytes([0x81, mask | size])
    elif size < 1 << 16:
        head = bytes([0x81, mask | 126]) + struct.pack("!H", size)
    else:
        head = bytes([0x81, mask | 127]) + struct.pack("!Q", size)
    return head + (b"\0\0\0\0" if masked else b"") + payload


def read_all(limit: FrameLimit) -> bytes:
    out = b""
    while piece := limit.recv(1024):
        out += piece
    return out


def until_refused(limit: FrameLimit) -> tuple[bytes, FrameTooLarge]:
    handed = b""
    while True:
        try:
            handed += limit.recv(1024)
        except FrameTooLarge as refused:
            return handed, refused


def test_frames_within_the_limit_pass_untouched_however_the_bytes_are_split() -> None:
    stream = (
        b"\n"
        + frame(b"a" * 10)
        + frame(b"b" * 300)
        + frame(b"c" * 70_000)
        + frame(b"", masked=True)
    )
    for cut in (1, 2, 3, 5, 11, 4096):
        pieces = [stream[i : i + cut] for i in range(0, len(stream), cut)]
        assert read_all(FrameLimit(Feed(*pieces), limit=70_000)) == stream


@pytest.mark.parametrize("cut", [1, 3, 9, 1000])
def test_an_oversized_frame_is_not_handed_over_and_the_socket_is_closed(cut: int) -> None:
    before = frame(b"ok" * 20)
    stream = before + frame(b"x" * 2000, length=1 << 40)  # declares a TiB, sends a little
    pieces = [stream[i : i + cut] for i in range(0, len(stream), cut)]
    raw = Feed(*pieces)
    limit = FrameLimit(raw, limit=1000)
    handed, refused = until_refused(limit)
    # Everything before the frame, and not one byte of its header or payload.
    assert handed == before
    assert (refused.length, refused.limit, raw.closed) == (1 << 40, 1000, True)
    assert "over the limit of 1000" in str(refused)
    with pytest.raises(FrameTooLarge):
        limit.recv(1024)  # the connection stays refused
    # 16-bit lengths are read as well as 64-bit ones.
    small = FrameLimit(Feed(frame(b"y" * 200, length=60_000)), limit=1000)
    with pytest.raises(FrameTooLarge):
        small.recv(4096)


def test_a_frame_of_exactly_the_limit_passes() -> None:
    stream = frame(b"z" * 1000)
    assert read_all(FrameLimit(Feed(stream), limit=1000)) == stream


def largest_envelope() -> dict[str, Any]:
    """An `events_api` envelope (a mention) of exactly MAX_BODY bytes as JSON."""
    mention = events.app_mention(channel="C0DEPLOY", user="U0ALICE", text="<@U0BOT> hi",
                                 ts="1700000000.000100")  # fmt: skip
    callback = events.event_callback(mention, event_id="Ev1")
    envelope = dict(events.socket_envelope("events_api", callback, envelope_id="largest"))
    envelope["padding"] = ""  # a field slack_sdk ignores
    envelope["padding"] = "x" * (MAX_BODY - len(json.dumps(envelope).encode()))
    assert len(json.dumps(envelope).encode()) == MAX_BODY
    return envelope


def test_over_a_real_socket_an_oversized_frame_drops_the_connection_and_the_bot_reconnects() -> (
    None
):
    with SlackServer(socket_mode=True) as slack:
        assert slack.socket_mode is not None
        client = WebClient(token=slack.bot_token, base_url=slack.api_url)
        bolt = App(client=client, signing_secret="dummy", token_verification_enabled=False)
        seen: list[Any] = []

        def got(event: dict[str, Any]) -> None:  # Bolt passes arguments by name
            seen.append(event)

        bolt.event("app_mention")(got)
        handler = CheckedSocketModeHandler(bolt, slack.app_token, Metrics())
        try:
            handler.connect()  # type: ignore[no-untyped-call]  # Bolt leaves it unannotated
            slack.socket_mode.wait_connected()
            first = handler.client.current_session
            assert first is not None
            guard = first.sock  # the connection forgets its socket once it is closed
            assert isinstance(guard, FrameLimit)
            # A frame declaring 256 MiB: the client closes the connection after its header.
            taken = slack.socket_mode.push_oversized(256 << 20)
            assert taken < 4 << 20  # the kernels' buffers at most, not the frame
            refused = guard.refused
            assert refused is not None
            assert (refused.length, refused.limit) == (256 << 20, MAX_BODY)
            # The client opens a new connection (its monitor notices the dead one) and events
            # flow on it, up to a message of exactly the limit.
            slack.socket_mode.wait_connected(count=2, timeout=30)
            slack.socket_mode.push(largest_envelope())
            slack.socket_mode.wait_for_ack("largest")
            slack.wait_for(lambda: seen)
        finally:
            handler.close()  # type: ignore[no-untyped-call]
