"""A local Socket Mode endpoint for slack_sdk's Socket Mode clients (and Bolt's handlers).

`SlackServer(socket_mode=True)` runs one and answers `apps.connections.open` with
`ws://127.0.0.1:PORT/link/?ticket=N`; a ticket is good for one connection, as Slack's are.
On each connection the server sends `hello`; a test then pushes envelopes to the newest
connection and waits for the client's acknowledgement (`{"envelope_id": ...}`):

    envelope_id = slack.socket_mode.push_event(events.event_callback(events.app_mention(...)))
    ack = slack.socket_mode.wait_for_ack(envelope_id)

slack_sdk's builtin client (the one Bolt's `SocketModeHandler` uses) speaks plain `ws://` to
any port other than 443, so no TLS is needed. The server is websockets' threaded (sync)
implementation: no event loop to manage, and `push_*` can be called from any test thread.
"""

from __future__ import annotations

import itertools
import json
import socket
import struct
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve

from fakes import slack_events

__all__ = ["Ack", "SocketModeServer"]


@dataclass(frozen=True)
class Ack:
    envelope_id: str
    payload: Any  # the response payload (slash commands may answer with one), or None
    raw: Mapping[str, Any]


class SocketModeServer:
    def __init__(self, *, app_id: str = "A0APP") -> None:
        self.app_id = app_id
        self.acks: list[Ack] = []
        self.received: list[Any] = []  # every frame a client sent, parsed as JSON
        self.sent: list[Mapping[str, Any]] = []  # every envelope/control message pushed
        self.connection_count = 0  # connections ever accepted
        self._tickets: set[str] = set()
        self._ticket_numbers = itertools.count(1)
        self._envelope_numbers = itertools.count(1)
        self._open: list[ServerConnection] = []
        self._retiring: list[ServerConnection] = []  # to close when a new connection opens
        self._changed = threading.Condition()
        self._send_lock = threading.Lock()
        self._server: Server = serve(
            self._handle,
            "127.0.0.1",
            0,
            process_request=self._check_ticket,
            compression=None,
            # The client pings us; our own pings would only add noise to its logs.
            ping_interval=None,
        )
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._started = False

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        if not self._started:
            self._started = True
            self._thread.start()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        # shutdown() waits for serve_forever() to notice, so a never-started server starts first;
        # it also closes open connections (code 1001), which ends their handler threads.
        self.start()
        self._server.shutdown()
        self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        host, port = self._server.socket.getsockname()[:2]
        return f"ws://{host}:{port}"

    def new_url(self) -> str:
        """A fresh connection URL, as `apps.connections.open` hands out."""
        ticket = f"ticket-{next(self._ticket_numbers)}"
        with self._changed:
            self._tickets.add(ticket)
        return f"{self.url}/link/?ticket={ticket}&app_id={self.app_id}"

    # -- driving a client --------------------------------------------------------------------

    @property
    def connected(self) -> int:
        """Connections open right now."""
        with self._changed:
            return len(self._open)

    def wait_connected(self, count: int = 1, timeout: float = 10.0) -> None:
        """Wait until at least `count` connections were ever accepted (reconnects count)."""
        self._wait(lambda: self.connection_count >= count and bool(self._open), timeout)

    def push(self, envelope: Mapping[str, Any], timeout: float = 10.0) -> str:
        """Send an envelope to the newest open connection; returns its envelope_id."""
        self.wait_connected(timeout=timeout)
        with self._changed:
            connection = self._open[-1]
        with self._send_lock:
            connection.send(json.dumps(envelope))
            self.sent.append(envelope)
        return str(envelope.get("envelope_id", ""))

    def push_event(
        self, payload: Mapping[str, Any], *, retry_attempt: int = 0, retry_reason: str = ""
    ) -> str:
        """An `events_api` envelope around an `event_callback` payload."""
        return self.push(
            slack_events.socket_envelope(
                "events_api",
                payload,
                envelope_id=self._envelope_id(),
                retry_attempt=retry_attempt,
                retry_reason=retry_reason,
            )
        )

    def push_command(self, payload: Mapping[str, str]) -> str:
        """A `slash_commands` envelope (the payload is the command's fields, as a dict)."""
        return self.push(
            slack_events.socket_envelope(
                "slash_commands",
                payload,
                envelope_id=self._envelope_id(),
                accepts_response_payload=True,
            )
        )

    def push_interactive(self, payload: Mapping[str, Any]) -> str:
        """An `interactive` envelope: a click, a modal's submission, a shortcut (the payload as
        Slack's `payload` field holds it); a view_submission's answer comes back in the ack."""
        return self.push(
            slack_events.socket_envelope(
                "interactive",
                payload,
                envelope_id=self._envelope_id(),
                accepts_response_payload=payload.get("type") == "view_submission",
            )
        )

    def push_oversized(self, length: int) -> int:
        """Start a text frame declaring `length` bytes of payload on the newest connection and
        write payload until the client closes it; returns the payload bytes the socket took
        (what the client read, plus what the two kernels' buffers held). The frame is written
        raw, so the connection is unusable afterwards (as a client that drops it wants)."""
        self.wait_connected()
        with self._changed:
            connection = self._open[-1]
        raw = connection.socket
        # A small send buffer, so what the socket took says how much the client accepted.
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 16)
        piece = b"x" * (1 << 16)
        sent = 0
        with self._send_lock:
            try:
                raw.sendall(bytes([0x81, 127]) + struct.pack("!Q", length))
                while sent < length:
                    sent += raw.send(piece[: length - sent])
            except OSError:
                pass  # the client closed the connection: what it should do
        return sent

    def disconnect(self, reason: str = "refresh_requested") -> None:
        """Ask the client to reconnect, as Slack does every few hours.

        Like Slack, the server then closes the old connection once the client has opened a new
        one; slack_sdk's builtin client would otherwise wait out a 3 s read timeout on it.
        """
        with self._changed:
            self._retiring.extend(self._open)
        self.push({"type": "disconnect", "reason": reason, "debug_info": {"host": "fake"}})

    def wait_for_ack(self, envelope_id: str, timeout: float = 10.0) -> Ack:
        def find() -> Ack | None:
            return next((a for a in self.acks if a.envelope_id == envelope_id), None)

        self._wait(lambda: find() is not None, timeout, f"ack of {envelope_id}")
        ack = find()
        assert ack is not None
        return ack

    # -- internals ---------------------------------------------------------------------------

    def _envelope_id(self) -> str:
        return f"envelope-{next(self._envelope_numbers):04d}"

    def _wait(self, condition: Any, timeout: float, what: str = "a connection") -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"Socket Mode: no {what} within {timeout}s")
                self._changed.wait(remaining)

    def _check_ticket(self, connection: ServerConnection, request: Request) -> Response | None:
        split = urlsplit(request.path)
        ticket = parse_qs(split.query).get("ticket", [""])[0]
        with self._changed:
            if split.path.rstrip("/") != "/link" or ticket not in self._tickets:
                return connection.respond(HTTPStatus.UNAUTHORIZED, "invalid ticket\n")
            self._tickets.discard(ticket)
        return None

    def _handle(self, connection: ServerConnection) -> None:
        with self._changed:
            retiring, self._retiring = self._retiring, []
            self._open.append(connection)
            self.connection_count += 1
            number = self.connection_count
            self._changed.notify_all()
        for old in retiring:
            # close() waits for the closing handshake: not on this connection's thread.
            threading.Thread(target=old.close, daemon=True).start()
        hello = {
            "type": "hello",
            "num_connections": number,
            "debug_info": {"host": "fake", "approximate_connection_time": 18060},
            "connection_info": {"app_id": self.app_id},
        }
        try:
            with self._send_lock:
                connection.send(json.dumps(hello))
            for frame in connection:
                self._record(frame)
        except ConnectionClosed:
            pass
        finally:
            with self._changed:
                self._open.remove(connection)
                self._changed.notify_all()

    def _record(self, frame: str | bytes) -> None:
        try:
            message = json.loads(frame)
        except ValueError:
            message = frame
        with self._changed:
            self.received.append(message)
            if isinstance(message, dict) and "envelope_id" in message:
                self.acks.append(Ack(str(message["envelope_id"]), message.get("payload"), message))
            self._changed.notify_all()
