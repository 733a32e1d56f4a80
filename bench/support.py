"""What the Slack service benchmarks share: a free port and a small Tanka origin repository.

Benchmarks may not import tests/, so they keep their own helpers here; run them as scripts
(`python bench/serve_ack.py`), which puts this folder on sys.path.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def git(cwd: Path, *args: str) -> None:
    """git with no user or system config, a fixed identity, failing loudly."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=cwd,
                   env=env, check=True, capture_output=True)  # fmt: skip


def bare_origin(tmp: Path, files: Mapping[str, str]) -> Path:
    """A bare repository at tmp/origin.git whose main branch holds `files` in one commit."""
    work = tmp / "project"
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    git(tmp, "init", "-q", "-b", "main", str(work))
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "init")
    git(tmp, "clone", "-q", "--bare", str(work), str(tmp / "origin.git"))
    return tmp / "origin.git"


def timed_post(url: str, body: bytes, headers: Mapping[str, str]) -> tuple[float, int]:
    """POST `body` to a local `url`: the seconds until the answer was read, and its status."""
    request = urllib.request.Request(url, body, dict(headers), method="POST")  # noqa: S310 - localhost
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - localhost
            response.read()
            status = int(response.status)
    except urllib.error.HTTPError as exc:
        status = exc.code
    return time.perf_counter() - started, status


class Redis:
    """A redis-server with an append-only file, so a restart keeps the data."""

    def __init__(self, workdir: Path) -> None:
        self.port, self.workdir = free_port(), workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
             str(self.workdir), "--save", "", "--appendonly", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(0.5)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


def bytecode_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """`env` (default: this process's) with Python free to write .pyc files, for a warm-up run:
    with PYTHONDONTWRITEBYTECODE set in the shell it left none, and every timed run of a
    command compiled the project's sources again, which an installed package never does."""
    return {k: v for k, v in (os.environ if env is None else env).items()
            if k != "PYTHONDONTWRITEBYTECODE"}  # fmt: skip
