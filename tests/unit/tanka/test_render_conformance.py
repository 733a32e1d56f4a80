"""Byte-identity with files committed by real tk; skipped unless a Tempo checkout is given.

Set TANKA_TEMPO_CHECKOUT to a clone of grafana/tempo (outside this project) to run it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.goyaml import load
from tools.tanka.goyaml.emit import dump_yaml

TEMPO = Path(os.environ.get("TANKA_TEMPO_CHECKOUT", "/nonexistent"))
GENERATED = sorted(TEMPO.glob("operations/jsonnet-compiled/*/gen/*.yaml"))


@pytest.mark.skipif(not GENERATED, reason="set TANKA_TEMPO_CHECKOUT to a grafana/tempo clone")
def test_tempo_exports_reemit_byte_identical() -> None:
    different: list[str] = []
    for path in GENERATED:
        text = path.read_text(encoding="utf-8")
        value: Any = load(text)
        if dump_yaml(value) != text:
            different.append(path.name)
    assert different == []
