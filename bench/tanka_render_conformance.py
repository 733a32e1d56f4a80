"""Conformance figures for the Tanka renderer against outputs committed by real tk.

Usage: .venv/bin/python bench/tanka_render_conformance.py [TEMPO_DIR] [ROLLOUT_OPERATOR_DIR]
(defaults /tmp/tempo and /tmp/rollout-operator: clones of grafana/tempo and
grafana/rollout-operator made outside this project). Prints, per corpus, how many committed files
dump_yaml re-emits byte for byte from their parsed data, then how many of Tempo's exported files
the whole engine (evaluate -> extract -> process -> export) reproduces. Missing checkouts are
skipped.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from tools.tanka.env.loader import EvalSettings
from tools.tanka.export.run import export
from tools.tanka.goyaml.emit import dump_yaml, show_output


class _GoLoader(yaml.SafeLoader):
    """Numbers as Go float64 (tk decodes JSON numbers so), `1e+06` included."""


_GoLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:int"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_GoLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"),
    list("-+0123456789."),
)


def _reemit(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    docs: list[Any] = list(yaml.load_all(text, Loader=_GoLoader))
    return (dump_yaml(docs[0]) if len(docs) == 1 else show_output(docs)) == text


def roundtrip(label: str, files: list[Path]) -> None:
    same = sum(_reemit(f) for f in files)
    print(f"{label}: {same}/{len(files)} committed files re-emitted byte-identical")


def tempo_end_to_end(tempo: Path) -> None:
    root = tempo / "operations" / "jsonnet-compiled"
    settings = EvalSettings(confine=tempo, timeout=300)  # vendor/ links into the Tempo repo
    for env in ("microservices", "microservices-with-extras"):
        out = Path(tempfile.mkdtemp()) / "out"
        started = time.perf_counter()
        fmt = "{{.kind}}-{{or .metadata.name .metadata.generateName}}"
        files = export(out, [root / env], format=fmt, settings=settings)
        seconds = time.perf_counter() - started
        committed = {p.name: p for p in (root / env / "gen").glob("*.yaml")}
        same = sum(
            1
            for f in files
            if f.name in committed and committed[f.name].read_bytes() == f.read_bytes()
        )
        names_match = sorted(committed) == sorted(f.name for f in files)
        print(
            f"tempo {env}: {same}/{len(committed)} files byte-identical end to end, "
            f"file names {'identical' if names_match else 'DIFFER'}, {seconds:.1f}s"
        )
        shutil.rmtree(out.parent)


def main() -> None:
    tempo = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/tempo")
    rollout = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/rollout-operator")
    gen = sorted(tempo.glob("operations/jsonnet-compiled/*/gen/*.yaml"))
    shows = sorted(rollout.glob("operations/rollout-operator-tests/*-generated.yaml"))
    if gen:
        roundtrip("tempo exports", gen)
        tempo_end_to_end(tempo)
    else:
        print(f"skipped tempo: no checkout at {tempo}")
    if shows:
        roundtrip("rollout-operator tk show streams", shows)
    else:
        print(f"skipped rollout-operator: no checkout at {rollout}")


if __name__ == "__main__":
    main()
