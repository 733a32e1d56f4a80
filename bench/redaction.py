"""Throughput of SecretMask.apply: 1,000 Secret values masked in a 5 MB rendered diff.

The values are random (8 to 48 characters of the base64 alphabet), each learned as a `stringData`
value (so its base64 forms are masked too); the text is unified-diff lines of Kubernetes YAML with
one line in a hundred carrying a value or its base64 form. Printed: the time to compile the mask
after learning the values, and the masking throughput over the whole text, for the mask and, as an
anchor, for a single-pass `str.replace` loop over the same values (correct only without overlaps).
Run: .venv/bin/python bench/redaction.py [VALUES] [MEGABYTES]
"""

from __future__ import annotations

import base64
import random
import string
import sys
import time

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


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 1000, float(args[1]) if len(args) > 1 else 5.0)
