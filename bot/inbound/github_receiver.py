"""`POST /github/webhook`: verify, deduplicate, parse, hand off, acknowledge.

The same gate as Slack's (bot.inbound.slack_signature): a bounded body, the signature checked in
constant
time before anything else is read, 401 for a missing or wrong one (logged without the body or the
secret). A repeated delivery is acknowledged and dropped, across replicas (the store's
`first_seen`): one whose `X-GitHub-Delivery` was seen, and one whose payload reports a comment,
review, check run or status already reported (`replay_key`), or, for an event without such an id,
whose body was seen, so a signed body replayed under a new delivery id or none is dropped too.
An empty `X-GitHub-Delivery` is refused: GitHub always sends one. What the bot reports goes to
`hand_off`, which must only queue work: the ack never waits for Slack.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from bot.domain.pr_events import GitHubEvent
from bot.inbound.github_webhook import PayloadError, parse, replay_key, verify
from bot.inbound.http import MAX_BODY, StartResponse, read_body, reply
from bot.store.base import Dedupe, StoreUnavailable
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

DELIVERY_TTL = 3 * 24 * 3600.0  # GitHub's "Redeliver" button is used within days, not weeks


class WebhookReceiver:
    """A WSGI app for the webhook path; HealthApp routes `POST /github/webhook` to it."""

    def __init__(
        self,
        secret: str,
        store: Dedupe,
        metrics: Metrics,
        hand_off: Callable[[GitHubEvent], object],  # what it says of a drop is its own to log
    ) -> None:
        self.secret = secret.encode()
        self.store = store
        self.metrics = metrics
        self.hand_off = hand_off

    def __call__(self, environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:  # noqa: PLR0911 - one early return per refusal reads best
        started = time.perf_counter()
        body = read_body(environ, MAX_BODY)
        if body is None:
            return reply(start, "413 Payload Too Large", b"request body too large\n")
        header = environ.get("HTTP_X_HUB_SIGNATURE_256", "")
        if not verify(self.secret, body, header):
            self.metrics.errors.labels("signature").inc()
            log.warning(
                "refused a GitHub webhook with a %s signature from %s",
                "missing" if not header else "wrong",
                environ.get("REMOTE_ADDR", "?"),
            )
            return reply(start, "401 Unauthorized", b"invalid signature\n")
        event = environ.get("HTTP_X_GITHUB_EVENT", "")
        delivery = environ.get("HTTP_X_GITHUB_DELIVERY")
        if delivery is not None and not delivery.strip():
            why = b"the X-GitHub-Delivery header is empty; send the delivery's id or leave it out\n"
            return reply(start, "400 Bad Request", why)
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return reply(start, "400 Bad Request", b"the body is not JSON\n")
        if not isinstance(payload, dict):
            return reply(start, "400 Bad Request", b"the body is not a JSON object\n")
        tokens = [f"github-delivery:{delivery}"] if delivery else []
        # An event that names no comment, review, run or status (`pull_request`) is known by
        # its signed body: GitHub never sends one body twice as two events.
        replay = replay_key(event, payload) or f"{event}:sha256:{hashlib.sha256(body).hexdigest()}"
        tokens.append(f"github-payload:{replay}")
        # Every token is recorded (no short cut), so either key stops a replay.
        fresh: list[bool] = []
        try:
            for token in tokens:
                fresh.append(self.store.first_seen(token, DELIVERY_TTL))
        except StoreUnavailable as exc:
            if not fresh:
                log.warning("GitHub delivery %s not taken, the store is down: %s", delivery, exc)
                return reply(start, "503 Service Unavailable",
                             b"store unavailable; redeliver later\n")  # fmt: skip
            # A key is recorded already, so a redelivery would be dropped: take this one now.
            log.warning("GitHub delivery %s: the store failed midway: %s", delivery, exc)
        if not all(fresh):
            self.metrics.deduplicated.inc()
            return reply(start, "200 OK", b"already delivered\n")
        self.metrics.events.labels(f"github:{event or 'unknown'}").inc()
        try:
            events = parse(event, payload)
        except PayloadError as exc:
            log.warning("GitHub %s delivery %s not understood: %s", event, delivery, exc)
            return reply(start, "202 Accepted", f"ignored: {exc}\n".encode())
        for item in events:
            self.hand_off(item)
        self.metrics.ack_seconds.observe(time.perf_counter() - started)
        return reply(start, "202 Accepted", f"{len(events)} event(s) taken\n".encode())
