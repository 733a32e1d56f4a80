"""A signed Slack request read at the edge, before Bolt: unreadable ones get 400, never 500.

Slack retries a request answered 5xx (three times), so a body Bolt cannot read must not reach it:
Bolt raises on a body that is not JSON or not an object, and its context builder and middleware
assume Slack's shapes (`event` an object, `team` a string or an object, ...). `read_envelope`
decodes the body as Bolt does (JSON when the content type says so or the body starts with `{`, a
form otherwise, whose `payload` field is JSON for interactivity) and checks the fields Bolt reads
on every request, at the top level and inside the objects it looks into. Anything else is Slack's
to send and the listeners' to parse (bot.inbound.slack_payloads), so every interactivity type
that shares the route is covered without being named here.

`EnvelopeGate` wraps Bolt's WSGI handler behind the signature gate. An event the app subscribes
to goes straight to its listener (`events`), without Bolt's dispatch: nearly every request in a
busy workspace is one, and Bolt's context building and listener matching cost several times what
the listener itself does (the signature was checked in front, and Bolt's one other middleware
for events, dropping the app's own, is in the listener). An unreadable request is
answered 400 with one log line (no traceback, never the body) and counted as
`tanka_bot_errors_total{kind="unreadable"}`; a well-formed request no listener takes (an event
type the app does not subscribe to) gets 200 instead of Bolt's 404, which Slack would retry. If
Bolt still fails on a request (raises, or answers 5xx when a middleware raised), that is a bug:
logged with its traceback, counted as `kind="inbound"`, and answered 400 so Slack does not
repeat it.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from bot.inbound.http import StartResponse, WSGIApp, reply
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Unreadable:
    reason: str  # what is wrong, for the log line and the 400 body


# Fields Bolt reads as an id (a string), or as an object or a string (`team`, `user`, ...).
_TEXT = ("type", "token", "team_id", "user_id", "channel_id", "enterprise_id", "thread_ts",
         "api_app_id", "event_id", "response_url", "user_team", "function_execution_id",
         "bot_access_token", "trigger_id", "callback_id", "command")  # fmt: skip
_TEXT_OR_OBJECT = ("team", "user", "channel", "enterprise")
# Objects Bolt looks into for the same fields.
_NESTED = ("event", "message", "previous_message", "item", "assistant_thread", "view",
           "function_data", "container")  # fmt: skip
_LISTS_OF_OBJECTS = ("authorizations", "response_urls", "actions")
# Of those, the ones Bolt reads as soon as the key is there, so null is as bad as a string (the
# fuzz test found `{"event": null}` and `{"response_urls": null}`); Slack leaves them out rather
# than sending null. Bolt takes `response_urls` only when there is no `response_url`.
_OBJECT_WHEN_PRESENT = ("event", "view")
_LIST_WHEN_PRESENT = ("response_urls",)
# Bolt follows `event` inside `event` for as long as the chain goes (looking for the team and
# enterprise), reading each link as a top-level payload; Slack never nests one.
MAX_EVENT_CHAIN = 8


def read_envelope(body: bytes, content_type: str) -> dict[str, Any] | Unreadable:
    """The request's payload as Bolt will see it, or why it cannot be read."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return Unreadable("the body is not UTF-8")
    if not text.strip():
        return Unreadable("the body is empty")
    kind = content_type.split(";", 1)[0]  # as Bolt compares it: exactly, parameters cut off
    if kind == "application/json" or text.startswith("{"):
        payload = _json(text, "the body")
    elif "payload" in text:
        form = dict(parse_qsl(text, keep_blank_values=True))
        if "payload" not in form:
            return Unreadable("the form has no payload field")
        payload = _json(form["payload"], "the form's payload field")
    else:
        return dict(parse_qsl(text, keep_blank_values=True))  # a slash command's form fields
    if isinstance(payload, Unreadable):
        return payload
    problem = envelope_problem(payload)
    return Unreadable(problem) if problem is not None else payload


def envelope_problem(payload: object, where: str = "the body") -> str | None:
    """Why a decoded payload (HTTP, or a Socket Mode envelope's) cannot be handed to Bolt."""
    if not isinstance(payload, Mapping):
        return f"{where} is not an object"
    return _shape(payload, where)


def _json(text: str, what: str) -> Any:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
        return Unreadable(f"{what} is not JSON")
    if not isinstance(value, dict):
        return Unreadable(f"{what} is JSON but not an object")
    return value


def _shape(payload: Mapping[str, Any], where: str, *, depth: int = 0, chain: int = 0) -> str | None:
    problem = _fields(payload, where)
    if chain > MAX_EVENT_CHAIN:
        problem = f"{where}: events nested more than {MAX_EVENT_CHAIN} deep"
    if problem is None and depth == 0 and payload.get("type") == "event_callback":
        event = payload.get("event")
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
            problem = f"{where}: an event_callback without an event object that has a type"
    if problem is not None or depth > 1:
        return problem  # Bolt looks one object deep, twice through `authorizations`
    for name in _NESTED:
        value = payload.get(name)
        present = value is not None or (name in _OBJECT_WHEN_PRESENT and name in payload)
        if present and not isinstance(value, Mapping):
            return f"{where}: {name} is not an object"
        if value is None:
            continue
        # An event in an event is read like the one above it (see MAX_EVENT_CHAIN).
        inner = (depth, chain + 1) if name == "event" and depth > 0 else (depth + 1, chain)
        if found := _shape(value, f"{where}.{name}", depth=inner[0], chain=inner[1]):
            return found
    return _lists(payload, where, depth)


def _lists(payload: Mapping[str, Any], where: str, depth: int) -> str | None:
    for name in _LISTS_OF_OBJECTS:
        items = payload.get(name)
        read_when_null = name in _LIST_WHEN_PRESENT and "response_url" not in payload
        if items is None and not (read_when_null and name in payload):
            continue
        if not isinstance(items, list) or not all(isinstance(i, Mapping) for i in items):
            return f"{where}: {name} is not a list of objects"
        if items and (found := _shape(items[0], f"{where}.{name}[0]", depth=depth + 1)):
            return found  # Bolt reads the first one
    return None


def _fields(payload: Mapping[str, Any], where: str) -> str | None:
    for name in _TEXT:
        if payload.get(name) is not None and not isinstance(payload[name], str):
            return f"{where}: {name} is not a string"
    for name in _TEXT_OR_OBJECT:
        value = payload.get(name)
        if isinstance(value, Mapping):
            inner = value.get("id")
            if inner is not None and not isinstance(inner, str):
                return f"{where}: {name}.id is not a string"
        elif value is not None and not isinstance(value, str):
            return f"{where}: {name} is neither a string nor an object"
    return None


class EnvelopeGate:
    """Bolt's WSGI handler behind a reading of the body; see the module's docstring."""

    def __init__(
        self, inner: WSGIApp, metrics: Metrics, *,
        events: Callable[[Mapping[str, Any], Mapping[str, Any]], None] | None = None,
        event_types: Collection[str] = (),
    ) -> None:  # fmt: skip
        self.inner = inner
        self.metrics = metrics
        self.events = events
        self.event_types = frozenset(event_types)

    def __call__(self, environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)  # the signature gate checked it
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        read = read_envelope(body, environ.get("CONTENT_TYPE", ""))
        if isinstance(read, Unreadable):
            self.metrics.errors.labels("unreadable").inc()
            log.warning("refused a signed Slack request: %s", read.reason)
            return reply(start, "400 Bad Request", f"{read.reason}\n".encode())
        if self.events is not None and read.get("type") == "event_callback":
            event = read["event"]  # read_envelope checked: an object with a type
            if event["type"] in self.event_types:
                self.events(read, event)  # never raises: it logs and counts its own failures
                return reply(start, "200 OK", b"")
        answered: list[str] = []

        def recording(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            answered.append(status)
            if status.startswith(("404", "5")):  # answered below instead
                return None
            return start(status, headers, *rest)

        out: Iterable[bytes] = []
        try:
            out = self.inner(environ, recording)
        except Exception:  # a request the reading above let through and Bolt could not take
            answered[:] = ["500"]
            log.exception("Bolt failed on a signed Slack request")
        if answered and answered[0].startswith("5"):
            # Slack would send it again, three times, and it would fail again: a bug to fix
            # (the log has it), not a reason to retry.
            self.metrics.errors.labels("inbound").inc()
            return reply(start, "400 Bad Request", b"the request could not be handled\n")
        if answered and answered[0].startswith("404"):  # Bolt: no listener takes it
            log.info("ignored a Slack request no listener takes (type %s)", read.get("type"))
            return reply(start, "200 OK", b"")
        return out
