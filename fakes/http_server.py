"""A scripted HTTP server on 127.0.0.1 for driving real SDKs in tests.

Each fake (Anthropic, Gemini, OpenAI, GitHub...) subclasses `ScriptedHTTPServer`. A test queues
replies, points the real client at `server.url`, and afterwards asserts on `server.requests`:

    with ScriptedHTTPServer() as server:
        server.script(Reply(status=200, body={"ok": True}))
        ...  # drive a client at server.url
        assert server.requests[0].json == {...}

Scripted items are usually `Reply` values; subclasses may accept richer items (a model message
dict, say) and turn them into a `Reply` in `render`, which sees the request being answered (so
the same item can be sent as JSON or as a stream, whichever the client asked for). Subclasses
validate requests in `validate` the way the real service would: a returned `Reply` (an error in
the real error shape) answers the request without consuming a scripted item.

A `Reply` with `delay` waits before answering, to provoke a client timeout; stopping the server
cuts such waits short, so tests never sleep for the whole delay.
"""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

__all__ = ["RecordedRequest", "Reply", "SSEEvent", "ScriptedHTTPServer"]


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One server-sent event; `data` is sent as is when a str, else as JSON."""

    data: Any
    event: str | None = None

    def encode(self) -> bytes:
        payload = self.data if isinstance(self.data, str) else json.dumps(self.data)
        head = f"event: {self.event}\n" if self.event else ""
        return f"{head}data: {payload}\n\n".encode()


@dataclass(frozen=True, slots=True)
class Reply:
    """What the server answers: JSON `body`, an SSE `events` stream, or `raw` bytes."""

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    events: Sequence[SSEEvent] | None = None
    raw: bytes | None = None
    delay: float = 0.0  # seconds to wait before answering

    def encode(self) -> tuple[bytes, str]:
        if self.events is not None:
            return b"".join(e.encode() for e in self.events), "text/event-stream"
        if self.raw is not None:
            return self.raw, "application/octet-stream"
        return json.dumps(self.body).encode(), "application/json"


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    path: str
    query: Mapping[str, list[str]]
    headers: Mapping[str, str]  # keys lower-cased
    body: bytes
    json: Any  # parsed body, or None when it is not JSON

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


class ScriptedHTTPServer:
    """Answers requests from a queue of scripted items; records every request."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Any] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # -- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def yield_cpu(self, niceness: int = 10) -> None:
        """Serve at a lower CPU priority from now on (Linux's per-thread niceness, which the
        request threads inherit): for a bench whose bot shares the machine with this stand-in
        for a service that would run elsewhere. Call it once started; elsewhere it does nothing."""
        native_id = self._thread.native_id
        if native_id is not None and hasattr(os, "setpriority"):
            os.setpriority(os.PRIO_PROCESS, native_id, niceness)

    def close(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join()
        self._httpd.server_close()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    # -- scripting -------------------------------------------------------------------------

    def script(self, *items: Any) -> None:
        """Queue items to answer the next requests, in order."""
        with self._lock:
            self._queue.extend(items)

    @property
    def pending(self) -> int:
        """Scripted items not used yet (a finished scenario usually leaves none)."""
        with self._lock:
            return len(self._queue)

    def json_requests(self, path_suffix: str = "") -> list[Any]:
        """Parsed bodies of the recorded requests whose path ends with `path_suffix`."""
        return [r.json for r in self.requests if r.path.endswith(path_suffix)]

    # -- hooks for subclasses --------------------------------------------------------------

    def validate(self, request: RecordedRequest) -> Reply | None:
        """Return an error reply to reject the request as the real service would."""
        return None

    def render(self, item: Any, request: RecordedRequest) -> Reply:
        """Turn a scripted item into a reply for this request."""
        return item if isinstance(item, Reply) else Reply(body=item)

    def unscripted(self, request: RecordedRequest) -> Reply:
        """The answer when the script is exhausted: a loud 500 naming the request."""
        message = f"fake server: no scripted reply left for {request.method} {request.path}"
        return Reply(status=500, body={"error": {"message": message}})

    # -- request handling ------------------------------------------------------------------

    def answer(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
        rejected = self.validate(request)
        if rejected is not None:
            return rejected
        with self._lock:
            item = self._queue.popleft() if self._queue else None
        if item is None:
            return self.unscripted(request)
        return self.render(item, request)

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; False when the server is stopping meanwhile."""
        return not self._stopping.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is expected here, not a test failure.
        pass


def _handler_for(owner: ScriptedHTTPServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def do_PUT(self) -> None:
            self._serve()

        def do_PATCH(self) -> None:
            self._serve()

        def do_DELETE(self) -> None:
            self._serve()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def _serve(self) -> None:
            request = self._record()
            reply = owner.answer(request)
            if reply.delay and not owner.wait(reply.delay):
                return
            self._send(reply)

        def _record(self) -> RecordedRequest:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            split = urlsplit(self.path)
            return RecordedRequest(
                method=self.command,
                path=split.path,
                query=parse_qs(split.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                json=_parse_json(body),
            )

        def _send(self, reply: Reply) -> None:
            payload, content_type = reply.encode()
            try:
                self.send_response(reply.status)
                headers = {"Content-Type": content_type, **reply.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the client gave up (e.g. its timeout fired)

    return Handler


def _parse_json(body: bytes) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None
