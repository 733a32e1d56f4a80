"""Figures for the import analysis and formatter on a synthetic repository of realistic shape.

A vendored library of N generated files (one entry point importing all of them, like
k8s-libsonnet's main.libsonnet), a lib/ wrapper, and E environments that import it.
Run: .venv/bin/python bench/bench_tanka_imports.py [VENDOR_FILES] [ENVIRONMENTS]
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tools.tanka.imports.graph import ImportScanner, search_path
from tools.tanka.imports.importers import importers
from tools.tanka.source.fmt import format_source

T = TypeVar("T")
WORK = Path(__file__).parent / ".work" / "tanka_imports"


def build(vendor_files: int, environments: int) -> Path:
    shutil.rmtree(WORK, ignore_errors=True)
    lib = WORK / "vendor" / "github.com" / "acme" / "k8s"
    lib.mkdir(parents=True)
    (WORK / "tkrc.yaml").write_text("{}\n")
    names = [f"gen/kind{i}.libsonnet" for i in range(vendor_files)]
    (lib / "gen").mkdir()
    for i, name in enumerate(names):
        body = "".join(f"  field{j}(x):: {{ spec+: {{ f{j}: x }} }},\n" for j in range(20))
        (lib / name).write_text(f"// kind {i}: import 'not-an-import'\n{{\n{body}}}\n")
    entries = ",\n".join(f"  kind{i}: import '{n}'" for i, n in enumerate(names))
    (lib / "main.libsonnet").write_text("{\n" + entries + "\n}\n")
    (WORK / "lib").mkdir()
    (WORK / "lib" / "k.libsonnet").write_text("import 'github.com/acme/k8s/main.libsonnet'\n")
    for e in range(environments):
        env = WORK / "environments" / f"env{e}"
        env.mkdir(parents=True)
        (env / "main.jsonnet").write_text("local k = import 'k.libsonnet';\n{ a: k.kind0 }\n")
    return WORK


def timed(label: str, action: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = action()
    print(f"{label:<58} {1000 * (time.perf_counter() - start):9.1f} ms")
    return result


def main() -> None:
    vendor_files = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    environments = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    root = build(vendor_files, environments)
    print(f"repository: {vendor_files} vendored files, {environments} environments")
    scanner = ImportScanner()
    target = "vendor/github.com/acme/k8s/gen/kind7.libsonnet"
    base = root / "environments" / "env0"
    timed(
        "closure of one env, cold scan cache",
        lambda: scanner.closure(base / "main.jsonnet", search_path(root, base)),
    )
    found = timed(
        f"importers({Path(target).name}), warm cache",
        lambda: importers(root, [target], scanner=scanner),
    )
    assert len(found) == environments
    timed("importers(...) again, warm cache", lambda: importers(root, [target], scanner=scanner))
    text = (root / "vendor/github.com/acme/k8s" / "main.libsonnet").read_text()
    timed(
        f"format_source of main.libsonnet ({len(text) // 1024} KiB)",
        lambda: format_source(text, "main.libsonnet"),
    )
    small = (root / "vendor/github.com/acme/k8s/gen/kind0.libsonnet").read_text()
    start = time.perf_counter()
    for _ in range(200):
        format_source(small, "kind0.libsonnet")
    per_call = (time.perf_counter() - start) / 200 * 1000
    print(f"{'format_source of a 1 KiB file, per call':<58} {per_call:9.2f} ms")


if __name__ == "__main__":
    main()
