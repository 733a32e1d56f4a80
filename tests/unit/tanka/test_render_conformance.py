"""Byte-identity with files committed by real tk; skipped unless a Tempo checkout is given.

Set TANKA_TEMPO_CHECKOUT to a clone of grafana/tempo (outside this project) to run it. Tempo's
`operations/jsonnet-compiled` commits its vendor directory and the output of
`tk export out/ <env> --format "{{.kind}}-{{or .metadata.name .metadata.generateName}}"` under
`<env>/gen`; both are checked: our YAML emitter re-emits those files unchanged, and a whole
`tanka-bot tk export` of each environment writes the same files byte for byte. Its vendor
symlinks point elsewhere in the repository, so the clone must be a git work tree (imports are
confined to it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.goyaml import load
from tools.tanka.evaluation.evaluate import ANSWERED
from tools.tanka.goyaml.emit import dump_yaml

# Every test here runs on go-jsonnet and on jrsonnet (conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")

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


COMPILED = TEMPO / "operations" / "jsonnet-compiled"
TEMPO_FORMAT = "{{.kind}}-{{or .metadata.name .metadata.generateName}}"


@pytest.mark.skipif(not GENERATED, reason="set TANKA_TEMPO_CHECKOUT to a grafana/tempo clone")
@pytest.mark.parametrize("env", ["microservices", "microservices-with-extras"])
def test_tempo_environments_export_byte_identical(
    env: str, evaluator: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(COMPILED)
    out = tmp_path / "out"
    before = ANSWERED.copy()
    assert main(["tk", "export", str(out), env, "--format", TEMPO_FORMAT]) == 0
    # Each evaluation was answered by the evaluator under test: jrsonnet needed no fallback.
    answered = ANSWERED - before
    assert set(answered) == {evaluator}
    committed = {p.name: p.read_bytes() for p in (COMPILED / env / "gen").glob("*.yaml")}
    written = {p.name: p.read_bytes() for p in out.glob("*.yaml")}
    assert sorted(written) == sorted(committed)
    assert [name for name in committed if written[name] != committed[name]] == []
