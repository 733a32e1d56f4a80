"""The import callback's fast path (directories resolved once per evaluation, one lstat per
candidate) decides exactly as a full os.path.realpath of every candidate would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.tanka.evaluation.importer import Importer, ImportRefused


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    """root/ with a symlinked directory inside it, one leaving it, and odd entries."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "lib" / "real").mkdir(parents=True)
    (root / "env").mkdir()
    outside.mkdir()
    (root / "lib" / "real" / "a.libsonnet").write_text("'a'")
    (outside / "b.libsonnet").write_text("'secret'")
    os.symlink(root / "lib" / "real", root / "lib" / "alias")  # stays inside
    os.symlink(outside, root / "lib" / "out")  # leaves the root
    os.symlink(root / "lib" / "alias" / "a.libsonnet", root / "lib" / "chain.libsonnet")
    os.symlink(root / "nowhere.libsonnet", root / "lib" / "dangling.libsonnet")
    return root, outside


def _importer(root: Path) -> Importer:
    return Importer((root / "vendor", root / "lib", root / "env"), confine=root)


def test_file_through_a_symlinked_directory_inside_is_found(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    imp = _importer(root)
    for _ in range(2):  # the second time from the directory cache
        found, content = imp(f"{root}/env/", "alias/a.libsonnet")
        assert found == str(root / "lib" / "alias" / "a.libsonnet")
        assert content == b"'a'"


def test_chained_file_symlink_inside_is_followed(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    assert _importer(root)(f"{root}/env/", "chain.libsonnet")[1] == b"'a'"


def test_file_through_a_directory_symlink_leaving_the_root_is_refused(tmp_path: Path) -> None:
    root, outside = _tree(tmp_path)
    imp = _importer(root)
    imp(f"{root}/env/", "alias/a.libsonnet")  # fills the directory cache first
    with pytest.raises(ImportRefused) as info:
        imp(f"{root}/env/", "out/b.libsonnet")
    assert f"is a symlink to {outside / 'b.libsonnet'}, outside" in str(info.value)


def test_missing_file_behind_a_leaving_directory_symlink_is_refused(tmp_path: Path) -> None:
    root, outside = _tree(tmp_path)
    with pytest.raises(ImportRefused) as info:
        _importer(root)(f"{root}/env/", "out/missing.libsonnet")
    assert f"is a symlink to {outside / 'missing.libsonnet'}, outside" in str(info.value)


def test_dangling_symlink_counts_as_missing(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    with pytest.raises(ImportRefused, match="no match locally or in the Jsonnet library paths"):
        _importer(root)(f"{root}/env/", "dangling.libsonnet")


def test_symlink_to_a_directory_is_an_error(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    with pytest.raises(ImportRefused, match="alias: is a directory"):
        _importer(root)(f"{root}/env/", "alias")


def test_file_under_a_regular_file_is_missing(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    (root / "env" / "plain").write_text("x")
    (root / "lib" / "plain").mkdir()
    (root / "lib" / "plain" / "c.libsonnet").write_text("'lib'")
    # env/plain/c.libsonnet fails with ENOTDIR: the search goes on to lib/.
    found, content = _importer(root)(f"{root}/env/", "plain/c.libsonnet")
    assert (found, content) == (str(root / "lib" / "plain" / "c.libsonnet"), b"'lib'")


def test_unreadable_directory_reports_the_os_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads any directory")
    root, _ = _tree(tmp_path)
    locked = root / "env" / "locked"
    locked.mkdir()
    (locked / "d.libsonnet").write_text("1")
    locked.chmod(0)
    try:
        with pytest.raises(ImportRefused, match="Permission denied"):
            _importer(root)(f"{root}/env/", "locked/d.libsonnet")
    finally:
        locked.chmod(0o755)


def test_one_run_importer_keeps_what_each_path_held(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    lib = root / "lib" / "real" / "a.libsonnet"
    imp = Importer((root / "lib", root / "env"), confine=root, one_run=True)
    assert imp(f"{root}/env/", "real/a.libsonnet")[1] == b"'a'"
    lib.write_text("'changed'")
    for where in ("env", "other"):
        (root / where / "real").mkdir(parents=True)
        (root / where / "real" / "a.libsonnet").write_text(f"'{where}'")
    # env/real/a.libsonnet was missing when first tried: it stays so, and lib/'s content stays.
    assert imp(f"{root}/lib/", "real/a.libsonnet")[1] == b"'a'"
    assert imp(f"{root}/env/", "real/a.libsonnet")[1] == b"'a'"
    # A path this run never tried is looked at.
    assert imp(f"{root}/other/", "real/a.libsonnet")[1] == b"'other'"
    fresh = Importer((root / "lib", root / "env"), confine=root)
    assert fresh(f"{root}/lib/", "real/a.libsonnet")[1] == b"'changed'"


def test_one_run_importer_names_each_refused_import(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    imp = Importer((root / "lib",), confine=root, one_run=True)
    for rel in ("out/b.libsonnet", "./out/b.libsonnet"):
        with pytest.raises(ImportRefused) as info:
            imp(f"{root}/env/", rel)
        assert f'import "{rel}" refused' in str(info.value)
