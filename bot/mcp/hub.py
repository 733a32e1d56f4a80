"""The MCP servers of TANKA_BOT_MCP_CONFIG, behind a synchronous interface for the agent's tools.

The `mcp` SDK is asynchronous; the bot is not (docs/design.md, decision 1). The hub runs one
asyncio loop on a daemon thread and keeps one connection per server on it, each owned by its own
task (the SDK's transports must be entered and left in one task). Tool calls from turn threads
are handed to that loop and waited on, polling the turn's cancellation.

Faults never escape as exceptions other than `McpFault`, whose message names the server and what
happened: a command that cannot start, no answer within the server's timeout, a connection that
ended (the server died or wrote something that is not MCP). After a fault the connection is torn
down; the next call starts the server again. `problems()` names the servers whose last attempt
failed, for /readyz.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, TextIO

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, Tool

from bot.errors import ServiceUnavailable
from bot.mcp.config import McpConfig, McpServer

log = logging.getLogger(__name__)

# Variables the SDK passes to every stdio server from the bot's environment; the hub unsets
# those the config does not name (`env -u`), so a server gets exactly its `env` plus
# PASSED_THROUGH.
_SDK_INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
# Starting a server (a process, a package runner's download, a TLS handshake) may take longer than
# one call: it gets at least this many seconds.
MIN_START_SECONDS = 30.0
# How often a server whose tools could not be listed is tried again (at most).
LIST_RETRY_SECONDS = 30.0
POLL = 0.05

# server, outcome ("ok", "error": the tool said so, "failed": the server did), seconds
CallObserver = Callable[[str, str, float], None]


class McpFault(ServiceUnavailable):
    """A server could not answer; the message names it and says what happened."""

    dependency = "mcp"


@dataclass(frozen=True, slots=True)
class Listing:
    server: McpServer
    tools: tuple[Tool, ...]


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _leaf(exc)
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def _finish(owner: asyncio.Task[None]) -> None:
    with contextlib.suppress(BaseException):
        await asyncio.wait_for(asyncio.shield(owner), 8.0)
    if not owner.done():
        owner.cancel()
        with contextlib.suppress(BaseException):
            await owner


class _Connection:
    """One server's connection, living on the hub's loop."""

    def __init__(self, server: McpServer, errlog: TextIO) -> None:
        self.server = server
        self.errlog = errlog
        self.client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._starting: asyncio.Lock | None = None
        self._closing: set[asyncio.Task[None]] = set()

    def _stdio(self, s: McpServer, command: tuple[str, ...]) -> StdioServerParameters:
        env = {k: v.get_secret_value() for k, v in s.env.items()}
        program = shutil.which(command[0], path=env.get("PATH"))
        if program is None:
            raise McpFault(
                f"MCP server {s.name}: cannot start: command {command[0]!r} not found on PATH"
            )
        unset = [name for name in _SDK_INHERITED if name not in env]
        wrapper = shutil.which("env")
        if wrapper is None:  # no coreutils env: the SDK's few inherited variables stay
            return StdioServerParameters(command=program, args=list(command[1:]), env=env)
        args = [arg for name in unset for arg in ("-u", name)]
        return StdioServerParameters(
            command=wrapper, args=[*args, "--", program, *command[1:]], env=env
        )

    async def _own(self, ready: asyncio.Future[Client], stop: asyncio.Event) -> None:
        s = self.server
        try:
            async with contextlib.AsyncExitStack() as stack:
                if s.url is not None:
                    headers = {k: v.get_secret_value() for k, v in s.headers.items()}
                    http = await stack.enter_async_context(
                        httpx2.AsyncClient(headers=headers, timeout=s.timeout)
                    )
                    transport = streamable_http_client(s.url, http_client=http)
                    client = Client(transport, read_timeout_seconds=s.timeout)
                else:
                    stdio = stdio_client(self._stdio(s, s.command or ()), errlog=self.errlog)
                    client = Client(stdio, read_timeout_seconds=s.timeout)
                await stack.enter_async_context(client)
                if not ready.done():
                    ready.set_result(client)
                await stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            elif not isinstance(exc, asyncio.CancelledError):
                log.info("MCP server %s: connection ended: %s", s.name, _describe(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise

    async def connect(self) -> Client:
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self.client is not None and self._owner is not None and not self._owner.done():
                return self.client
            await self.reset()
            loop = asyncio.get_running_loop()
            ready: asyncio.Future[Client] = loop.create_future()
            self._stop = asyncio.Event()
            self._owner = loop.create_task(self._own(ready, self._stop))
            try:
                self.client = await asyncio.wait_for(asyncio.shield(ready), self.start_timeout)
            except TimeoutError:
                await self.reset(wait=False)
                raise McpFault(
                    f"MCP server {self.server.name}: did not start within {self.start_timeout:g} s"
                ) from None
            except McpFault:
                await self.reset(wait=False)
                raise
            except Exception as exc:
                await self.reset(wait=False)
                raise McpFault(
                    f"MCP server {self.server.name}: cannot start: {_describe(exc)}"
                ) from None
            return self.client

    @property
    def start_timeout(self) -> float:
        return max(self.server.timeout, MIN_START_SECONDS)

    async def reset(self, *, wait: bool = True) -> None:
        """Tear the connection down (the server process stops); the next call starts it again.

        With `wait=False` the teardown (the SDK gives a stdio server seconds to exit) goes on in
        the background, so a failed call reports at once.
        """
        owner, stop = self._owner, self._stop
        self._owner, self._stop, self.client = None, None, None
        if owner is None:
            return
        if stop is not None:
            stop.set()
        if wait:
            await _finish(owner)
        else:
            task = asyncio.get_running_loop().create_task(_finish(owner))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def list_tools(self) -> tuple[Tool, ...]:
        client = await self.connect()
        found: list[Tool] = []
        cursor: str | None = None
        for _ in range(100):  # a paginator that never ends cannot hang start-up
            page = await client.list_tools(cursor=cursor)
            found.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tuple(found)

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> CallToolResult:
        client = await self.connect()
        return await client.call_tool(tool, dict(arguments))


class McpHub:
    """Every configured server; thread-safe. `start()` lists their tools, `close()` stops them."""

    def __init__(
        self,
        config: McpConfig,
        *,
        on_call: CallObserver | None = None,
        errlog: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.on_call = on_call
        self._clock = clock
        self._errlog = errlog if errlog is not None else sys.stderr
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-hub", daemon=True)
        self._connections = {s.name: _Connection(s, self._errlog) for s in config.servers}
        self._lock = threading.Lock()
        self._listings: dict[str, Listing] = {}
        self._problems: dict[str, str] = {}
        self._listed_at: dict[str, float] = {}
        self._listing: dict[str, Future[tuple[Tool, ...]]] = {}
        self._started = False

    # -- life cycle --------------------------------------------------------------------------

    def start(self, *, wait: bool = True) -> None:
        """Start the loop and list every server's tools (waiting up to their timeouts)."""
        if not self._started:
            self._thread.start()
            self._started = True
        futures = [self._list(name) for name in self._connections]
        if wait:
            for future in futures:
                with contextlib.suppress(Exception):
                    future.result()

    def close(self) -> None:
        if not self._started:
            return

        async def stop_all() -> None:
            connections = self._connections.values()
            await asyncio.gather(*(c.reset() for c in connections))
            await asyncio.gather(*(t for c in connections for t in list(c._closing)))

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(stop_all(), self._loop).result(15)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()
        self._started = False

    # -- listings ----------------------------------------------------------------------------

    def _list(self, name: str) -> Future[tuple[Tool, ...]]:
        with self._lock:
            running = self._listing.get(name)
            if running is not None and not running.done():
                return running
            self._listed_at[name] = self._clock()
            future = asyncio.run_coroutine_threadsafe(self._list_async(name), self._loop)
            self._listing[name] = future
            return future

    async def _list_async(self, name: str) -> tuple[Tool, ...]:
        connection = self._connections[name]
        try:
            await connection.connect()
            tools = await asyncio.wait_for(connection.list_tools(), connection.server.timeout)
        except McpFault as exc:
            self._fail(name, str(exc))
            raise
        except Exception as exc:
            await connection.reset(wait=False)
            message = f"MCP server {name}: cannot list its tools: {_describe(exc)}"
            self._fail(name, message)
            raise McpFault(message) from None
        with self._lock:
            self._listings[name] = Listing(connection.server, tools)
            self._problems.pop(name, None)
        return tools

    def listings(self) -> list[Listing]:
        """The tool listings known now; servers never listed are retried in the background."""
        now = self._clock()
        with self._lock:
            stale = [
                name
                for name in self._connections
                if name not in self._listings
                and now - self._listed_at.get(name, float("-inf")) >= LIST_RETRY_SECONDS
            ]
            known = [self._listings[n] for n in self._connections if n in self._listings]
        if self._started:
            for name in stale:
                self._list(name)
        return known

    # -- calls -------------------------------------------------------------------------------

    def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> CallToolResult:
        """Call a tool; McpFault when the server cannot answer (it restarts on the next call)."""
        connection = self._connections[server]
        timeout = connection.server.timeout
        started = self._clock()
        future = asyncio.run_coroutine_threadsafe(
            self._call_async(connection, tool, arguments), self._loop
        )
        # The coroutine bounds itself (start + call); the grace covers handing results back.
        deadline = time.monotonic() + connection.start_timeout + timeout + 10
        while True:
            try:
                result = future.result(POLL)
                break
            except FutureTimeout:
                if cancelled():
                    future.cancel()
                    raise McpFault(f"MCP server {server}: call cancelled") from None
                if time.monotonic() > deadline:
                    future.cancel()
                    self._observe(server, "failed", started)
                    raise McpFault(f"MCP server {server}: no answer in time") from None
            except McpFault:
                self._observe(server, "failed", started)
                raise
        self._observe(server, "error" if result.is_error else "ok", started)
        return result

    async def _call_async(
        self, connection: _Connection, tool: str, arguments: Mapping[str, Any]
    ) -> CallToolResult:
        name = connection.server.name
        timeout = connection.server.timeout
        try:
            await connection.connect()  # bounded by its own start timeout
            result = await asyncio.wait_for(connection.call(tool, arguments), timeout)
        except McpFault as exc:
            self._fail(name, str(exc))
            raise
        except TimeoutError:
            await connection.reset(wait=False)
            message = (
                f"MCP server {name}: no answer within {timeout:g} s; it is restarted on the "
                "next call"
            )
            self._fail(name, message)
            raise McpFault(message) from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # The connection ended (the server died, or wrote what is not MCP) or the server
            # refused the request at the protocol level.
            await connection.reset(wait=False)
            message = (
                f"MCP server {name}: the call failed ({_describe(exc)}); the server is "
                "restarted on the next call"
            )
            self._fail(name, message)
            raise McpFault(message) from None
        with self._lock:
            self._problems.pop(name, None)
        return result

    def _fail(self, name: str, message: str) -> None:
        log.warning("%s", message)
        with self._lock:
            self._problems[name] = message

    def _observe(self, server: str, outcome: str, started: float) -> None:
        if self.on_call is not None:
            self.on_call(server, outcome, self._clock() - started)

    def problems(self) -> dict[str, str]:
        """Servers whose last start, listing or call failed, with what happened."""
        with self._lock:
            return dict(self._problems)
