"""Byte-identity with files committed by real tk; skipped unless a Tempo checkout is given.

Set TANKA_TEMPO_CHECKOUT to a clone of grafana/tempo (outside this project) to run it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tools.tanka.goyaml.emit import dump_yaml

TEMPO = Path(os.environ.get("TANKA_TEMPO_CHECKOUT", "/nonexistent"))
GENERATED = sorted(TEMPO.glob("operations/jsonnet-compiled/*/gen/*.yaml"))


class GoLoader(yaml.SafeLoader):
    """Numbers as Go float64, `1e+06` included."""


GoLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:int"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
GoLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"),
    list("-+0123456789."),
)


@pytest.mark.skipif(not GENERATED, reason="set TANKA_TEMPO_CHECKOUT to a grafana/tempo clone")
def test_tempo_exports_reemit_byte_identical() -> None:
    different: list[str] = []
    for path in GENERATED:
        text = path.read_text(encoding="utf-8")
        value: Any = yaml.load(text, Loader=GoLoader)  # noqa: S506 - a SafeLoader subclass
        if dump_yaml(value) != text:
            different.append(path.name)
    assert different == []
