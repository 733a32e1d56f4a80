"""Throughput of SecretMask.apply: 1,000 Secret values masked in a 5 MB rendered diff.

The values are random (8 to 48 characters of the base64 alphabet), each learned as a `stringData`
value (so its base64 forms are masked too); the text is unified-diff lines of Kubernetes YAML with
one line in a hundred carrying a value or its base64 form. Printed: the time to compile the mask
after learning the values, and the masking throughput over the whole text, for the mask and, as an
anchor, for a single-pass `str.replace` loop over the same values (correct only without overlaps).
Run: .venv/bin/python bench/redaction.py [VALUES] [MEGABYTES]

With TANKA_BENCH_TEMPO set to a Grafana Tempo checkout's `operations/jsonnet-compiled`, it also
masks Tempo's largest render (`tanka-bot tk show` of each environment, the longest kept) with 50
generated passwords and a kubeconfig learned: the text's size, the time, and how many markers
the mask put in a render that holds none of the values (it must be 0).
"""

from __future__ import annotations

import base64
import os
import random
import string
import subprocess
import sys
import time
from pathlib import Path

from tools.redaction import REDACTED, SecretMask

LINES = [
    "   apiVersion: apps/v1",
    "   kind: Deployment",
    "     name: grafana",
    "-    replicas: 2",
    "+    replicas: 3",
    "         image: docker.io/grafana/grafana:11.2.0",
    "           - containerPort: 3000",
    "       app.kubernetes.io/name: grafana",
    "+  GF_SERVER_ROOT_URL: https://grafana.example.com/",
    "diff -u -N LIVE-apps-v1.Deployment.monitoring.grafana MERGED-apps-v1.Deployment...",
]


def values(count: int, rng: random.Random) -> list[str]:
    alphabet = string.ascii_letters + string.digits + "+/-_"
    return ["".join(rng.choices(alphabet, k=rng.randint(8, 48))) for _ in range(count)]


def diff_text(secrets: list[str], megabytes: float, rng: random.Random) -> str:
    lines, size = [], 0
    while size < megabytes * 1_000_000:
        line = rng.choice(LINES)
        if rng.random() < 0.01:
            value = rng.choice(secrets)
            encoded = base64.b64encode(value.encode()).decode()
            line += " " + (value if rng.random() < 0.5 else encoded)
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines) + "\n"


def main(count: int = 1000, megabytes: float = 5.0) -> None:
    rng = random.Random(12)  # noqa: S311 - the same figures on every run, not cryptography
    secrets = values(count, rng)
    text = diff_text(secrets, megabytes, rng)
    mb = len(text.encode()) / 1_000_000

    mask = SecretMask(secrets)
    started = time.perf_counter()
    mask.apply("warm-up: compiles the pattern")
    compiled = time.perf_counter() - started

    started = time.perf_counter()
    masked = mask.apply(text)
    elapsed = time.perf_counter() - started
    assert not any(v in masked for v in secrets), "a value survived masking"

    started = time.perf_counter()
    replaced = text
    for value in sorted(secrets, key=len, reverse=True):
        replaced = replaced.replace(value, REDACTED)
    anchor = time.perf_counter() - started

    print(f"SecretMask: {count} values ({mask.size} forms), {mb:.1f} MB of diff")
    print(f"  compile          {compiled * 1000:8.1f} ms")
    print(f"  apply            {elapsed * 1000:8.1f} ms   {mb / elapsed:6.1f} MB/s")
    print(f"  str.replace loop {anchor * 1000:8.1f} ms   {mb / anchor:6.1f} MB/s (anchor)")


def tempo(checkout: Path, rng: random.Random) -> None:
    renders = []
    for env in ("microservices", "microservices-with-extras"):
        shown = subprocess.run(
            [sys.executable, "-m", "bot", "tk", "show", env],
            cwd=checkout, capture_output=True, text=True, check=True,
        )  # fmt: skip
        renders.append(shown.stdout)
    text = max(renders, key=len)
    learned = [*values(50, rng), _kubeconfig(rng)]
    mask = SecretMask(learned)
    mask.apply("warm-up: compiles the pattern")
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        masked = mask.apply(text)
        timings.append(time.perf_counter() - started)
    mb = len(text.encode()) / 1_000_000
    best = min(timings)
    print(f"Tempo's largest render: {mb:.2f} MB, {text.count(chr(10))} lines")
    print(f"  apply            {best * 1000:8.1f} ms   {mb / best:6.1f} MB/s (min of 5)")
    print(f"  markers placed   {masked.count(REDACTED):8d}      (the render holds no value)")


def _kubeconfig(rng: random.Random) -> str:
    token = "".join(rng.choices(string.ascii_letters + string.digits, k=48))
    ca = base64.b64encode(rng.randbytes(600)).decode()
    return (
        "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n"
        f"    certificate-authority-data: {ca}\n    server: https://kubernetes.default.svc\n"
        f"  name: production\nusers:\n- name: deployer\n  user:\n    token: {token}\n"
    )


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 1000, float(args[1]) if len(args) > 1 else 5.0)
    checkout = os.environ.get("TANKA_BENCH_TEMPO", "")
    if checkout:
        tempo(Path(checkout), random.Random(13))  # noqa: S311 - figures, not cryptography
    else:
        print("Tempo: skipped (set TANKA_BENCH_TEMPO to operations/jsonnet-compiled)")
