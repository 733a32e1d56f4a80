"""The mask takes nothing that is not a Secret's: every manifest, chart and Jsonnet file this
repository holds, read with a mask that knows Secret values of every usual shape (generated
passwords, a database URL, a kubeconfig, `.dockerconfigjson`, an Alertmanager configuration, a
certificate), comes out exactly as it went in. bench/redaction.py does the same on Grafana
Tempo's largest render.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

import pytest

from tools.redaction import SecretMask

ROOT = Path(__file__).resolve().parents[3]
SUFFIXES = {".yaml", ".yml", ".json", ".jsonnet", ".libsonnet", ".tpl"}


def usual_secrets(rng: random.Random) -> list[str]:
    def token(size: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        return "".join(rng.choices(alphabet, k=size))

    passwords = [token(rng.randint(12, 32), string.ascii_letters + string.digits + "!#%&*<>-_")
                 for _ in range(20)]  # fmt: skip
    cert_lines = [token(64, string.ascii_letters + string.digits + "+/") for _ in range(6)]
    cert = "\n".join(["-----BEGIN CERTIFICATE-----", *cert_lines, "-----END CERTIFICATE-----"])
    kubeconfig = f"""apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: {base64.b64encode(cert.encode()).decode()}
    server: https://kubernetes.default.svc
  name: production
contexts:
- context:
    cluster: production
    user: deployer
  name: production
current-context: production
users:
- name: deployer
  user:
    token: {token(48)}
"""
    auth = base64.b64encode(f"robot:{passwords[0]}".encode()).decode()
    docker = json.dumps({"auths": {"registry.example.com": {
        "username": "robot", "password": passwords[0], "auth": auth}}})  # fmt: skip
    alertmanager = f"""global:
  resolve_timeout: 5m
  slack_api_url: https://hooks.slack.com/services/T000/B000/{token(24)}
route:
  receiver: default-receiver
  group_by: [alertname, namespace]
receivers:
- name: default-receiver
  slack_configs:
  - channel: '#alerts'
    send_resolved: true
"""
    database = f"postgres://grafana:{passwords[1]}@db.prod.svc:5432/grafana?sslmode=require"
    return [*passwords, cert, kubeconfig, docker, alertmanager, database]


def corpus() -> list[Path]:
    return sorted(
        p
        for top in ("tests/fixtures", "evals", "charts")
        for p in (ROOT / top).rglob("*")
        if p.suffix in SUFFIXES and p.is_file() and "secret" not in str(p).lower()
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_this_repositorys_manifests_lose_nothing_to_the_mask(seed: int) -> None:
    mask = SecretMask(usual_secrets(random.Random(seed)))  # noqa: S311 - test data
    files = corpus()
    assert len(files) > 100
    changed = [p.relative_to(ROOT) for p in files if mask.apply(p.read_text()) != p.read_text()]
    assert changed == []
