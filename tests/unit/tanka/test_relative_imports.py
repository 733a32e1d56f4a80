"""Relative imports that climb out of the importing directory, as tk resolves them, and the
confinement that still keeps every read inside the project.

tk's case is grafana/tanka's `pkg/jsonnet/testdata/findImporters/environments/relative-import` at
commit 9cbf25174556cdd5c1471ee2bd15463a5576fef2 (the tree is rebuilt by
test_importers_tk_cases.py): `../../relative-imported2/main.jsonnet` misses from the environment's
directory, leaves the project from `lib/` and hits from the environment's `vendor/`; tk renders
it (its find_importers_test.go counts the environment as an importer of all four files).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.unit.tanka.test_importers_tk_cases import TREE, T
from tools.tanka.evaluation.importer import Importer, ImportRefused
from tools.tanka.imports.graph import ImportScanner, search_path

# Every test here runs on go-jsonnet and on jrsonnet (conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "pkg" / T
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    # Files just outside the project where a lookup escaping it would land: never to be read.
    for escaped in ("relative-imported2/main.jsonnet", "other-files/test2.txt"):
        (root.parent / escaped).parent.mkdir(parents=True, exist_ok=True)
        (root.parent / escaped).write_text("'OUTSIDE'")
    return root


def test_tk_relative_import_case_renders(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert main(["tk", "eval", "environments/relative-import"]) == 0
    value = json.loads(capsys.readouterr().out)
    assert value == {"first": {}, "second": {}, "externalFile": "test1", "externalFile2": "test2"}


def _importer(root: Path, env: Path) -> Importer:
    """tk's jpath for an environment: root/vendor, env/vendor, root/lib, env."""
    return Importer((root / "vendor", env / "vendor", root / "lib", env), confine=root)


def test_a_candidate_leaving_the_project_is_skipped_not_fatal(project: Path) -> None:
    env = project / "environments" / "relative-import"
    found, content = _importer(project, env)(f"{env}/", "../../../other-files/test2.txt")
    assert (found, content) == (str(project / "other-files" / "test2.txt"), b"test2")


def test_no_candidate_inside_fails_saying_it_would_leave(project: Path) -> None:
    env = project / "environments" / "relative-import"
    with pytest.raises(ImportRefused) as info:
        _importer(project, env)(f"{env}/", "../../../../etc/passwd")
    text = str(info.value)
    assert text.startswith('import "../../../../etc/passwd" refused: ')
    assert "is outside the project directory" in text
    assert "imports may not leave the project directory" in text


@pytest.mark.parametrize("rel", ["/etc/passwd", "/" + "/".join(["..", "etc", "passwd"])])
def test_absolute_paths_stay_refused(project: Path, rel: str) -> None:
    with pytest.raises(ImportRefused, match="absolute import paths are not allowed"):
        _importer(project, project / "environments" / "no-imports")(f"{project}/", rel)


def test_a_symlink_out_is_skipped_and_never_followed(project: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.libsonnet"
    secret.write_text("'dummy-secret'")
    env = project / "environments" / "no-imports"
    os.symlink(secret, env / "s.libsonnet")
    (project / "lib" / "s.libsonnet").write_text("'lib'")
    # The environment's link would win in tk; here it leaves, so the search goes on to lib/.
    assert _importer(project, env)(f"{env}/", "s.libsonnet") == (
        str(project / "lib" / "s.libsonnet"),
        b"'lib'",
    )
    (project / "lib" / "s.libsonnet").unlink()
    with pytest.raises(ImportRefused, match=r"is a symlink to .*secret\.libsonnet, outside"):
        _importer(project, env)(f"{env}/", "s.libsonnet")


def test_nothing_outside_is_even_looked_at(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every path the importer hands to the OS stays inside the project, whatever the symlinks
    say: relative and absolute links out, a link whose `..` climbs out, a directory link out."""
    outside = tmp_path / "out"
    (outside / "d").mkdir(parents=True)
    (outside / "d" / "x.libsonnet").write_text("'dummy'")
    env = project / "environments" / "no-imports"
    os.symlink(outside / "d" / "x.libsonnet", env / "abs.libsonnet")
    os.symlink(os.path.relpath(outside / "d" / "x.libsonnet", env), env / "rel.libsonnet")
    os.symlink("../../..", env / "up")
    os.symlink(outside / "d", env / "dir")
    imp = _importer(project, env)  # resolves the project's own path first
    touched: list[str] = []
    for name in ("lstat", "stat", "readlink", "open"):
        real = getattr(os, name)

        def spy(path: Any, *args: Any, _real: Any = real, **kw: Any) -> Any:
            touched.append(os.fspath(path))
            return _real(path, *args, **kw)

        monkeypatch.setattr(os, name, spy)
    for rel in ("abs.libsonnet", "rel.libsonnet", "up/out/d/x.libsonnet", "dir/x.libsonnet",
                "../../../out/d/x.libsonnet"):  # fmt: skip
        with pytest.raises(ImportRefused, match="imports may not leave the project"):
            imp(f"{env}/", rel)
    monkeypatch.undo()
    real_root = os.path.realpath(project)
    assert touched
    assert all(p.startswith((f"{project}/", f"{real_root}/")) for p in touched), touched


def test_the_import_analysis_does_not_look_through_a_symlink_out(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The importers/imports analysis resolves as the evaluator: a vendored symlink leading out
    of the project is skipped, and nothing outside is stat'ed or read."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.libsonnet").write_text("import 'y.libsonnet'")
    env = project / "environments" / "no-imports"
    os.symlink(outside, project / "vendor" / "out")
    (env / "main.jsonnet").write_text(
        "{ a: import 'out/x.libsonnet', b: import 'lib1/main.libsonnet' }"
    )
    scanner = ImportScanner()
    touched: list[str] = []
    for name in ("lstat", "stat", "readlink"):
        real = getattr(os, name)

        def spy(path: Any, *args: Any, _real: Any = real, **kw: Any) -> Any:
            touched.append(os.fspath(path))
            return _real(path, *args, **kw)

        monkeypatch.setattr(os, name, spy)
    graph = scanner.closure(env / "main.jsonnet", search_path(project, env), confine=project)
    monkeypatch.undo()
    assert [r.ref.path for r in graph.unresolved] == ["out/x.libsonnet"]
    assert "leaves the repository" in graph.unresolved[0].message
    assert project / "lib" / "lib1" / "main.libsonnet" in graph.files
    # Besides the project's files: the project's own location, resolved once (its ancestors).
    ancestors = {str(project), *map(str, project.parents)}
    strays = [p for p in touched if not (p.startswith(f"{project}/") or p in ancestors)]
    assert strays == []
    assert not any(p.startswith(str(outside)) for p in touched)
