"""The scripted server base: replies in order, records requests, cuts delays short on close."""

# ruff: noqa: S310  (urllib talks to the local fake only)

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest

from fakes.http_server import Reply, ScriptedHTTPServer, SSEEvent


def _post(url: str, body: object, timeout: float = 5.0) -> tuple[int, bytes]:
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.read()


def test_replies_in_order_and_records_requests() -> None:
    with ScriptedHTTPServer() as server:
        server.script(Reply(body={"n": 1}), Reply(status=429, body={"n": 2}))
        assert _post(server.url + "/a?x=1", {"q": 1}) == (200, b'{"n": 1}')
        assert _post(server.url + "/b", {"q": 2}) == (429, b'{"n": 2}')
        status, body = _post(server.url + "/c", {})
    assert status == 500
    assert b"no scripted reply left for POST /c" in body
    assert [r.path for r in server.requests] == ["/a", "/b", "/c"]
    assert server.requests[0].query == {"x": ["1"]}
    assert server.requests[0].json == {"q": 1}
    assert server.requests[0].header("content-type") == "application/json"


def test_sse_events_are_named_and_json_encoded() -> None:
    with ScriptedHTTPServer() as server:
        server.script(Reply(events=[SSEEvent({"a": 1}, event="ping"), SSEEvent("[DONE]")]))
        status, body = _post(server.url, {})
    assert status == 200
    assert body == b'event: ping\ndata: {"a": 1}\n\ndata: [DONE]\n\n'


def test_delay_provokes_client_timeout_and_close_does_not_wait() -> None:
    with ScriptedHTTPServer() as server:
        server.script(Reply(body={}, delay=30.0))
        with pytest.raises((TimeoutError, socket.timeout, urllib.error.URLError)):
            _post(server.url, {}, timeout=0.2)
    assert len(server.requests) == 1
