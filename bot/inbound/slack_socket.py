"""Socket Mode's edge: an envelope Bolt cannot read is acknowledged and dropped, not dispatched.

Over the socket, a payload Bolt chokes on raises inside slack_sdk's listener thread: the
connection survives, but the envelope is never acknowledged (so Slack sends it again) and a
traceback is logged each time. The same reading as HTTP mode's (bot.inbound.slack_envelope)
runs first: an unreadable payload is acknowledged, logged in one line and counted as
`tanka_bot_errors_total{kind="unreadable"}`; everything else goes to Bolt as before.
"""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk.socket_mode.builtin import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from bot.inbound.slack_envelope import envelope_problem
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)


class CheckedSocketModeHandler(SocketModeHandler):
    def __init__(self, app: App, app_token: str, metrics: Metrics) -> None:
        super().__init__(app, app_token)
        self.metrics = metrics

    def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:  # type: ignore[override]  # as Bolt narrows it
        problem = envelope_problem(req.payload, f"the {req.type} envelope's payload")
        if problem is None:
            super().handle(client, req)
            return
        self.metrics.errors.labels("unreadable").inc()
        log.warning("dropped a Socket Mode envelope: %s", problem)
        client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
