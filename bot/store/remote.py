"""Objects of the serving process called from the work process, over a local socket.

Why: without Redis the state replicas would share (sessions, dedupe marks, the work queue, the
leases, the guardrails' records, the audit log, the web view's history) lives in process memory.
The turns run in a work process of their own (bot.work_process) so that they do not hold the
interpreter that acknowledges Slack; the state stays in the serving process, which the work
process reaches through a `Host`, so both see one state as two replicas see one Redis. A store
call costs the serving process some tens of microseconds, where a turn held its interpreter for
tens of milliseconds; and a work process that dies loses nothing the serving process keeps.

The socket is in a private directory and a connection must prove it knows the host's key.
Each of the caller's threads has its own connection (a blocking `take_work` waits alone), each
answered by a thread of the host's. A call that raises in the host raises the same in the
caller; a connection that fails is StoreUnavailable (the serving process is gone: the work
process ends too).
"""

from __future__ import annotations

import logging
import pickle
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

from bot.errors import Bug
from bot.store.base import StoreUnavailable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Address:
    """Where a host listens and the key a connection proves it has (pickled into the work
    process with its launch)."""

    path: str
    key: bytes


class Host:
    """Serves `objects` (name -> object) to the work process; their public methods only."""

    def __init__(self, objects: dict[str, object]) -> None:
        self._objects = objects
        key = secrets.token_bytes(32)
        # AF_UNIX: a path in a directory only this user may enter (multiprocessing's own)
        self._listener = Listener(family="AF_UNIX", authkey=key)
        self.address = Address(str(self._listener.address), key)
        self._closed = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._accept, name="remote-accept", daemon=True).start()

    def close(self) -> None:
        self._closed.set()
        self._listener.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                connection = self._listener.accept()
            except (OSError, EOFError, AuthenticationError):  # closed, or a failed challenge
                continue
            threading.Thread(target=self._serve, args=(connection,), name="remote",
                             daemon=True).start()  # fmt: skip

    def _serve(self, connection: Connection) -> None:
        with connection:
            while True:
                try:
                    name, method, args, kwargs = connection.recv()
                except (EOFError, OSError):
                    return  # the calling thread ended, or its process did
                answer = self._call(name, method, args, kwargs)
                try:
                    try:
                        connection.send(answer)
                    except (pickle.PicklingError, TypeError, AttributeError) as exc:
                        connection.send((False, Bug(f"{name}.{method}'s answer: {exc}")))
                except OSError:
                    return

    def _call(self, name: str, method: str, args: Any, kwargs: Any) -> tuple[bool, object]:
        if method.startswith("_") or name not in self._objects:
            return False, Bug(f"no remote method {name}.{method}")
        if method == "close":  # the serving process closes what it keeps, when it stops
            return True, None
        try:
            result = getattr(self._objects[name], method)(*args, **kwargs)
        except Exception as exc:  # raised in the caller
            try:
                pickle.loads(pickle.dumps(exc))  # noqa: S301 - our own bytes, just made
            except Exception:
                log.exception("remote %s.%s failed", name, method)
                return False, Bug(f"{name}.{method}: {type(exc).__name__}: {exc}")
            return False, exc
        if isinstance(result, Iterator):  # a generator (the audit log's read) cannot travel
            return True, list(result)
        return True, result


class Channel:
    """The work process's side of a host: one connection per thread, opened on first use."""

    def __init__(self, address: Address) -> None:
        self._address = address
        self._mine = threading.local()

    def remote(self, name: str) -> Any:
        """The host's object `name`, to be typed by the caller as the protocol it serves."""
        return Remote(self, name)

    def call(self, name: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        connection: Connection | None = getattr(self._mine, "connection", None)
        try:
            if connection is None:
                connection = Client(self._address.path, family="AF_UNIX",
                                    authkey=self._address.key)  # fmt: skip
                self._mine.connection = connection
            connection.send((name, method, args, kwargs))
            ok, value = connection.recv()
        except (EOFError, OSError, AuthenticationError) as exc:
            self._mine.connection = None
            raise StoreUnavailable(
                f"the serving process's {name} cannot be reached ({type(exc).__name__})"
            ) from None
        if ok:
            return value
        raise value


class Remote:
    """One hosted object: each public method called is a call on the host."""

    def __init__(self, channel: Channel, name: str) -> None:
        self._channel = channel
        self._name = name

    def __getattr__(self, method: str) -> Any:
        if method.startswith("_"):
            raise AttributeError(method)
        channel, name = self._channel, self._name

        def call(*args: Any, **kwargs: Any) -> Any:
            return channel.call(name, method, args, kwargs)

        return call
