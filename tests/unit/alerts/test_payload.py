"""Alertmanager's version-4 webhook payload, parsed: a hand-written fixture, a payload captured
from a real Alertmanager, and every malformed shape refused with the field named."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bot.domain.alerts import AlertPayloadError, parse_notification
from tests.alertmanager import MISSING, Alertmanager, alertmanager_binary

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "alerts" / "oomkilled.json"


def fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


def test_the_hand_written_fixture_parses_into_values() -> None:
    n = parse_notification(fixture())
    assert n.status == "firing"
    assert n.group_key == '{}:{alertname="KubeContainerOOMKilled", namespace="prod"}'
    assert n.alertname == "KubeContainerOOMKilled"
    assert n.group_labels == {"alertname": "KubeContainerOOMKilled", "namespace": "prod"}
    assert (
        n.common_annotations["runbook_url"] == "https://runbooks.example.com/KubeContainerOOMKilled"
    )
    (alert,) = n.alerts
    assert alert.labels["pod"] == "loki-0"
    assert alert.fingerprint == "5c2bd4e1b5b3a7f0"
    assert alert.generator_url.startswith("http://prometheus.example.com/graph")
    assert n.firing == (alert,)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda p: p.update(version="3"), "version must be '4'"),
        (lambda p: p.pop("groupKey"), "groupKey"),
        (lambda p: p.update(groupKey=""), "groupKey"),
        (lambda p: p.update(status="pending"), "status: must be 'firing' or 'resolved'"),
        (lambda p: p.update(alerts={}), "alerts: must be a list"),
        (lambda p: p["alerts"][0].update(status=None), "alerts[0].status"),
        (lambda p: p["alerts"][0]["labels"].update(pod=3), "alerts[0].labels.pod"),
        (lambda p: p.update(commonAnnotations=[]), "commonAnnotations: must be an object"),
        (lambda p: p["alerts"][0].update(generatorURL=5), "alerts[0].generatorURL"),
        (lambda p: p.update(truncatedAlerts=-1), "truncatedAlerts"),
        (lambda p: p["alerts"].append("x"), "alerts[1]: must be an object"),
    ],
)
def test_a_malformed_payload_is_refused_naming_the_field(change: Any, needle: str) -> None:
    payload = copy.deepcopy(fixture())
    change(payload)
    with pytest.raises(AlertPayloadError, match=None) as caught:
        parse_notification(payload)
    assert needle in str(caught.value)


def test_a_body_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(AlertPayloadError, match="JSON object"):
        parse_notification([fixture()])


class _Capture(BaseHTTPRequestHandler):
    bodies: list[tuple[str, bytes]]
    arrived: threading.Event

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.bodies.append((self.headers.get("Authorization", ""), body))
        self.arrived.set()
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def capture() -> Iterator[tuple[str, list[tuple[str, bytes]], threading.Event]]:
    bodies: list[tuple[str, bytes]] = []
    arrived = threading.Event()
    handler = type("Capture", (_Capture,), {"bodies": bodies, "arrived": arrived})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", bodies, arrived
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.skipif(alertmanager_binary() is None, reason=MISSING)
def test_a_payload_a_real_alertmanager_sends_parses(
    tmp_path: Path, capture: tuple[str, list[tuple[str, bytes]], threading.Event]
) -> None:
    url, bodies, arrived = capture
    with Alertmanager(tmp_path, url, "t0ken", group_by=("alertname", "namespace")) as am:
        am.post_alerts([{
            "labels": {"alertname": "KubeContainerOOMKilled", "namespace": "prod",
                       "container": "loki", "severity": "warning"},
            "annotations": {"summary": "OOMKilled", "runbook_url": "https://r.example/oom"},
            "generatorURL": "http://prometheus.example/graph?g0.expr=up",
        }])  # fmt: skip
        assert arrived.wait(20), "Alertmanager sent no notification"
    authorization, body = bodies[0]
    assert authorization == "Bearer t0ken"
    n = parse_notification(json.loads(body))
    assert n.status == "firing"
    assert n.receiver == "tanka-bot"
    assert n.group_labels == {"alertname": "KubeContainerOOMKilled", "namespace": "prod"}
    assert n.alertname == "KubeContainerOOMKilled"
    (alert,) = n.alerts
    assert alert.labels["container"] == "loki"
    assert alert.annotations["runbook_url"] == "https://r.example/oom"
    assert alert.generator_url == "http://prometheus.example/graph?g0.expr=up"
    assert alert.fingerprint
    assert 'namespace="prod"' in n.group_key
