"""A real Alertmanager for tests (Debian's `prometheus-alertmanager`) on a free loopback port.

    with Alertmanager(tmp_path, webhook_url, token="...") as am:
        am.post_alerts([{"labels": {"alertname": "X"}, "annotations": {...}}])

Clustering is off (`--cluster.listen-address=`), its storage is a temp folder, and its one
receiver is a webhook to `webhook_url` with a bearer token and `send_resolved: true`; group_wait,
group_interval and repeat_interval are short so tests see first, changed and repeated
notifications within seconds. `.ci/run` installs the package; tests skip without it.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import yaml

START_TIMEOUT = 20.0
MISSING = "prometheus-alertmanager is not installed (apt-get install prometheus-alertmanager)"


def alertmanager_binary() -> str | None:
    return shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def config(webhook_url: str, token: str | None, *, group_by: Sequence[str] = ("alertname",),
           group_wait: str = "1s", group_interval: str = "2s",
           repeat_interval: str = "3s") -> dict[str, Any]:  # fmt: skip
    """An Alertmanager configuration whose one receiver is the bot's webhook."""
    webhook: dict[str, Any] = {"url": webhook_url, "send_resolved": True, "max_alerts": 0}
    if token is not None:
        webhook["http_config"] = {"authorization": {"type": "Bearer", "credentials": token}}
    return {
        "route": {
            "receiver": "tanka-bot",
            "group_by": list(group_by),
            "group_wait": group_wait,
            "group_interval": group_interval,
            "repeat_interval": repeat_interval,
        },
        "receivers": [{"name": "tanka-bot", "webhook_configs": [webhook]}],
    }


class Alertmanager:
    def __init__(self, workdir: Path, webhook_url: str, token: str | None, **timing: Any) -> None:
        binary = alertmanager_binary()
        if binary is None:
            raise RuntimeError(MISSING)
        self._binary = binary
        self._workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self._config = workdir / "alertmanager.yml"
        self._config.write_text(yaml.safe_dump(config(webhook_url, token, **timing)))
        self.port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self._workdir / "alertmanager.log"

    def start(self) -> None:
        (self._workdir / "data").mkdir(exist_ok=True)
        args = [
            self._binary,
            f"--config.file={self._config}",
            f"--storage.path={self._workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            "--cluster.listen-address=",
            "--log.level=debug",
        ]
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"alertmanager exited:\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/-/ready", timeout=2) as r:  # noqa: S310 - loopback
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"alertmanager did not get ready:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(10)
        self._process = None

    def post_alerts(self, alerts: Sequence[Mapping[str, Any]]) -> None:
        """Fire (or, with `endsAt` in the past, resolve) alerts through the v2 API."""
        body = json.dumps(list(alerts)).encode()
        request = urllib.request.Request(  # noqa: S310 - loopback
            self.url + "/api/v2/alerts", data=body, method="POST",
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - loopback
            assert response.status == 200, response.read()

    def __enter__(self) -> Alertmanager:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
