"""A real `redis-server` for tests, on a free local port, that a test can stop and restart.

    with RedisServer(tmp_path, password="hunter2") as server:
        store = RedisStore(server.url)
        server.stop()   # Redis is down: the store raises StoreUnavailable
        server.start()  # back on the same port, empty (nothing is persisted)

Nothing is written to disk (`--save "" --appendonly no`); the server's log goes to the temp dir
and is shown when it fails to start.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

import redis

START_TIMEOUT = 10.0


def redis_server_binary() -> str | None:
    """The `redis-server` on PATH (Debian package `redis-server`), or None."""
    return shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    def __init__(
        self, workdir: Path, *, password: str | None = None, keep_data: bool = False
    ) -> None:
        binary = redis_server_binary()
        if binary is None:
            raise RuntimeError("redis-server is not on PATH: apt-get install redis-server")
        self._binary = binary
        self._workdir = workdir
        self._password = password
        self._keep_data = keep_data  # an append-only file: a restart finds the data again
        self.port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{quote(self._password, safe='')}@" if self._password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    @property
    def log(self) -> Path:
        return self._workdir / "redis.log"

    def start(self) -> None:
        """Start the server (again) on `port` and wait until it answers PING."""
        if self._process is not None:
            raise RuntimeError("redis-server is already running")
        args = [self._binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--dir", str(self._workdir), "--save", ""]
        args += ["--appendonly", "yes" if self._keep_data else "no", "--appendfsync", "always"]
        args += ["--logfile", str(self.log)]
        if self._password:
            args += ["--requirepass", self._password]
        self._process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self._wait_until_ready()

    def stop(self) -> None:
        """Stop the server; clients see refused connections until `start`."""
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def _wait_until_ready(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + START_TIMEOUT
        client = redis.Redis.from_url(self.url, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            while True:
                if self._process.poll() is not None:
                    self._process = None
                    raise RuntimeError(f"redis-server exited at start:\n{self._log_text()}")
                try:
                    client.ping()
                    return
                except redis.exceptions.ConnectionError:
                    if time.monotonic() > deadline:
                        self.stop()
                        raise RuntimeError(
                            f"redis-server did not answer within {START_TIMEOUT}s:\n"
                            f"{self._log_text()}"
                        ) from None
                    time.sleep(0.02)
        finally:
            client.close()

    def _log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else "(no log)"

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
