"""Property: whatever symlinks the project holds and whatever path a Jsonnet file imports, the
evaluator's import callback looks at nothing outside the project (no read, no lstat, no stat, no
readlink), never returns an outside file's bytes, and, when it finds a file, finds the one a
plain realpath-based search (candidates leaving the project skipped) finds first."""

from __future__ import annotations

import builtins
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.property.conftest import CASES
from tools.tanka.evaluation.importer import Importer, ImportRefused

SENTINEL = b"'OUTSIDE-SENTINEL-91c2'"
SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

segment = st.sampled_from(
    [
        "..", ".", "a", "b", "c", "d", "lib", "env", "out", "secret.libsonnet",
        "real.libsonnet", "x.libsonnet",
    ]
)  # fmt: skip
import_path = st.lists(segment, min_size=1, max_size=6).map("/".join)
link_target = st.sampled_from(
    [
        "../outside", "{outside}", "{outside}/secret.libsonnet", "../../outside/secret.libsonnet",
        "..", "../..", "../../..", "lib", "{root}/lib", "{root}/../outside", "{root}/lib/../..",
        "a", "b", "nowhere", "real.libsonnet", "../lib/real.libsonnet", ".",
    ]
)  # fmt: skip
link_place = st.sampled_from(["env/a", "env/b", "env/c", "lib/d", "lib/a", "out"])
layout = st.lists(st.tuples(link_place, link_target), max_size=5, unique_by=lambda t: t[0])


@contextmanager
def project(links: list[tuple[str, str]]) -> Iterator[tuple[Path, Path]]:
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        root, outside = top / "root", top / "outside"
        for directory in (root / "env", root / "lib", outside):
            directory.mkdir(parents=True)
        (root / "jsonnetfile.json").write_text("{}")
        (root / "lib" / "real.libsonnet").write_text("'real'")
        (root / "env" / "x.libsonnet").write_text("'x'")
        (outside / "secret.libsonnet").write_bytes(SENTINEL)
        (top / "secret.libsonnet").write_bytes(SENTINEL)
        (top / "x.libsonnet").write_bytes(SENTINEL)
        for place, target in links:
            os.symlink(target.format(root=root, outside=outside), root / place)
        yield root, outside


@contextmanager
def watching() -> Iterator[list[str]]:
    """Every path handed to the calls that read or look at files."""
    touched: list[str] = []

    def spy(real: Any) -> Any:
        def call(path: Any, *args: Any, **kw: Any) -> Any:
            if isinstance(path, str | os.PathLike):
                touched.append(os.fspath(path))
            return real(path, *args, **kw)

        return call

    with (
        mock.patch.object(os, "lstat", spy(os.lstat)),
        mock.patch.object(os, "stat", spy(os.stat)),
        mock.patch.object(os, "readlink", spy(os.readlink)),
        mock.patch.object(builtins, "open", spy(builtins.open)),
    ):
        yield touched


def _inside(path: str, *roots: str) -> bool:
    return any(path == r or path.startswith(r + "/") for r in roots)


def first_hit(root: Path, directories: list[str], rel: str) -> str | None:
    """The reference search: realpath each candidate, skip those leaving the project."""
    real_root = os.path.realpath(root)
    for directory in directories:
        candidate = os.path.normpath(os.path.join(directory, rel))
        if not _inside(candidate, str(root)):
            continue
        real = os.path.realpath(candidate)
        if _inside(real, real_root) and os.path.isfile(real):
            return candidate
    return None


@SETTINGS
@given(links=layout, rel=import_path, from_lib=st.booleans())
def test_imports_never_look_outside(links: list[tuple[str, str]], rel: str, from_lib: bool) -> None:
    CASES["import"] += 1
    with project(links) as (root, _):
        base = root / "env"
        search = (root / "vendor", base / "vendor", root / "lib", base)
        importer = Importer(search, confine=root)
        importing = f"{root / ('lib' if from_lib else 'env')}/"
        with watching() as touched:
            try:
                found: tuple[str, bytes] | None = importer(importing, rel)
                error = ""
            except ImportRefused as exc:
                found, error = None, str(exc)
        roots = (str(root), os.path.realpath(root))
        assert all(_inside(p, *roots) for p in touched), (rel, links, touched)
        expected = first_hit(root, [importing, *map(str, reversed(search))], rel)
        if found is not None:
            assert found[1] != SENTINEL
            assert found[0] == expected, (rel, links)
        elif "no match locally" in error or "may not leave the project" in error:
            assert expected is None, (rel, links, error)
