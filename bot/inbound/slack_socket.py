"""Socket Mode's edge: an envelope Bolt cannot read is acknowledged and dropped, not dispatched.

Over the socket, a payload that is not an object makes slack_sdk raise before any handler runs,
and one Bolt chokes on raises inside Bolt: either way the connection survives, but the envelope
is never acknowledged (so Slack sends it again) and a traceback is logged each time. The same
reading as HTTP mode's (bot.inbound.slack_envelope) runs first, as a raw message listener: an
unreadable payload is acknowledged, logged in one line, counted as
`tanka_bot_errors_total{kind="unreadable"}` and taken out of the envelope, which slack_sdk then
hands to no one. Everything else goes to Bolt untouched.

What arrives is bounded as HTTP bodies are (bot.inbound.http.MAX_BODY): each connection's socket
is wrapped, before a byte of it is read as frames, in a `FrameLimit`
(bot.inbound.socket_frames), so a frame over the limit is not read; the connection is dropped
and the client opens a new one, as after any broken connection.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk.socket_mode.builtin import SocketModeClient
from slack_sdk.socket_mode.builtin.connection import Connection
from slack_sdk.socket_mode.client import BaseSocketModeClient
from slack_sdk.socket_mode.response import SocketModeResponse

from bot.inbound.http import MAX_BODY
from bot.inbound.slack_envelope import envelope_problem
from bot.inbound.socket_frames import FrameLimit
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

# slack_sdk's builtin client reads a frame with one nested call per `recv` of this many bytes:
# at Bolt's 1 KiB, a message near MAX_BODY went past Python's recursion limit (1000) and the
# connection lost its place in the stream. At 16 KiB a MAX_BODY frame takes 64 calls.
RECEIVE_BUFFER = 16 * 1024
# Envelopes that carry a request for Bolt (others: hello, disconnect).
REQUESTS = ("events_api", "interactive", "slash_commands")


class BoundedSocketModeClient(SocketModeClient):
    """slack_sdk's builtin client, whose connections read no frame over `limit` bytes."""

    limit = MAX_BODY

    # The client stores each new connection here once its handshake is done and before its
    # reader thread sees it (that thread reads the connection through this attribute): the one
    # moment to wrap the socket without losing a byte, and no slack_sdk code is replaced.
    @property
    def current_session(self) -> Connection | None:
        return self._bounded_session

    @current_session.setter
    def current_session(self, session: Connection | None) -> None:
        if (
            session is not None
            and session.sock is not None
            and not isinstance(session.sock, FrameLimit)
        ):
            session.sock = FrameLimit(session.sock, self.limit)  # type: ignore[assignment]
        self._bounded_session = session


class CheckedSocketModeHandler(SocketModeHandler):
    def __init__(self, app: App, app_token: str, metrics: Metrics) -> None:
        # Bolt's own __init__ would build (and start the threads of) the builtin client; this
        # sets what it sets, with the bounded client built from the same arguments.
        self.app = app
        self.app_token = app_token
        self.client = BoundedSocketModeClient(
            app_token=app_token, logger=app.logger, web_client=app.client, proxy=app.client.proxy,
            receive_buffer_size=RECEIVE_BUFFER,
        )  # fmt: skip
        self.client.socket_mode_request_listeners.append(self.handle)  # type: ignore[arg-type]
        self.metrics = metrics
        # Message listeners run before slack_sdk builds the request for the handler.
        self.client.message_listeners.append(self.check)

    def check(
        self, client: BaseSocketModeClient, message: dict[Any, Any], _raw: str | None
    ) -> None:
        kind, envelope_id = message.get("type"), message.get("envelope_id")
        if kind not in REQUESTS or not isinstance(envelope_id, str) or "payload" not in message:
            return
        problem = envelope_problem(message["payload"], f"the {kind} envelope's payload")
        if problem is None:
            return
        del message["payload"]  # without one, slack_sdk hands the envelope to no handler
        self.metrics.errors.labels("unreadable").inc()
        log.warning("dropped a Socket Mode envelope: %s", problem)
        client.send_socket_mode_response(SocketModeResponse(envelope_id=envelope_id))
