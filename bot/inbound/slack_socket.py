"""Socket Mode's edge: an envelope Bolt cannot read is acknowledged and dropped, not dispatched.

Over the socket, a payload that is not an object makes slack_sdk raise before any handler runs,
and one Bolt chokes on raises inside Bolt: either way the connection survives, but the envelope
is never acknowledged (so Slack sends it again) and a traceback is logged each time. The same
reading as HTTP mode's (bot.inbound.slack_envelope) runs first, as a raw message listener: an
unreadable payload is acknowledged, logged in one line, counted as
`tanka_bot_errors_total{kind="unreadable"}` and taken out of the envelope, which slack_sdk then
hands to no one. Everything else goes to Bolt untouched.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk.socket_mode.client import BaseSocketModeClient
from slack_sdk.socket_mode.response import SocketModeResponse

from bot.inbound.slack_envelope import envelope_problem
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

# Envelopes that carry a request for Bolt (others: hello, disconnect).
REQUESTS = ("events_api", "interactive", "slash_commands")


class CheckedSocketModeHandler(SocketModeHandler):
    def __init__(self, app: App, app_token: str, metrics: Metrics) -> None:
        super().__init__(app, app_token)
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
