"""A small MCP server built with the real SDK, for tests and bench: an "ops" toolset.

    python -m fakes.mcp_server            # over stdio, as TANKA_BOT_MCP_CONFIG's command
    server = HttpMcpServer(token="t"); server.start(); server.url   # streamable HTTP, in-process

Tools: firing_alerts, environment, huge, crash, hang, garbage, shout (read-only, annotated) and
silence (not annotated: offered only when allowlisted). `crash` ends the process (stdio) and
`garbage` writes lines that are not MCP to stdout, then never answers.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True)


def build(name: str = "ops") -> MCPServer:
    server: MCPServer = MCPServer(name)

    @server.tool(annotations=READ_ONLY)
    def firing_alerts(severity: str = "critical") -> str:
        """The alerts firing now, one per line."""
        return (
            f"HighErrorRate app=checkout severity={severity}\nDiskFull node=n1 severity={severity}"
        )

    @server.tool(annotations=READ_ONLY)
    def environment() -> str:
        """The server process's environment, as JSON."""
        return json.dumps(dict(os.environ), sort_keys=True)

    @server.tool(annotations=READ_ONLY)
    def huge(kilobytes: int = 200) -> str:
        """A long output."""
        line = "x" * 99 + "\n"
        return "BEGIN\n" + line * (kilobytes * 1024 // 100) + "END"

    @server.tool(annotations=READ_ONLY)
    def shout(text: str) -> str:
        """Echo text back."""
        return text

    @server.tool(annotations=READ_ONLY)
    def crash() -> str:
        """End the server process at once."""
        os._exit(3)

    @server.tool(annotations=READ_ONLY)
    def hang(seconds: float = 3600) -> str:
        """Never answer (in time)."""
        time.sleep(seconds)
        return "woke up"

    @server.tool(annotations=READ_ONLY)
    def garbage() -> str:
        """Write what is not MCP to stdout, then never answer."""
        sys.stdout.write("this is not json-rpc\n{broken\n")
        sys.stdout.flush()
        time.sleep(3600)
        return "unreachable"

    @server.tool()
    def silence(alert: str) -> str:
        """Silence an alert (changes the monitoring system: not read-only)."""
        return f"silenced {alert}"

    return server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class HttpMcpServer:
    """The same tools over streamable HTTP (uvicorn on a thread); requires a bearer token."""

    def __init__(self, token: str = "", name: str = "ops") -> None:
        import uvicorn  # noqa: PLC0415 - uvicorn loads only when the fake serves over HTTP

        self.token = token
        self.port = free_port()
        self.requests = 0
        app = build(name).streamable_http_app()
        config = uvicorn.Config(
            self._guard(app), host="127.0.0.1", port=self.port, log_level="warning"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="mcp-http", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def _guard(self, app: Any) -> Any:
        async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http" and self.token:
                headers = dict(scope.get("headers") or [])
                if headers.get(b"authorization") != f"Bearer {self.token}".encode():
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b"unauthorized"})
                    return
            if scope["type"] == "http":
                self.requests += 1
            await app(scope, receive, send)

        return guarded

    def start(self) -> HttpMcpServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the MCP HTTP server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)


if __name__ == "__main__":
    build(sys.argv[1] if len(sys.argv) > 1 else "ops").run("stdio")
