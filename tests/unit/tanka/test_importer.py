"""The import callback: tk's search order, `import "tk"`, confinement, caching."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.tanka.evaluation.importer import PRELUDE, Importer, ImportRefused
from tools.tanka.tk_library import TK_LIBRARY_PATH

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tanka"
STATIC = FIXTURES / "static"
ENV = STATIC / "environments" / "prod"


def _importer(root: Path = STATIC, base: Path = ENV) -> Importer:
    return Importer((root / "vendor", base / "vendor", root / "lib", base), confine=root)


def test_precedence_is_base_then_lib_then_env_vendor_then_root_vendor() -> None:
    found, content = _importer()(f"{ENV}/", "which.libsonnet")
    assert found == str(STATIC / "lib" / "which.libsonnet")
    assert content == b"'lib'\n"
    no_lib = Importer(
        (STATIC / "vendor", ENV / "vendor", STATIC / "none", STATIC / "none"), confine=FIXTURES
    )
    assert no_lib("", "which.libsonnet")[0] == str(ENV / "vendor" / "which.libsonnet")
    only_root = Importer((STATIC / "vendor", STATIC / "none"), confine=FIXTURES)
    assert only_root("", "which.libsonnet")[0] == str(STATIC / "vendor" / "which.libsonnet")


def test_importing_directory_comes_first() -> None:
    found, _ = _importer()(f"{STATIC}/lib/", "which.libsonnet")
    assert found == str(STATIC / "lib" / "which.libsonnet")


def test_tk_library_is_served_from_memory() -> None:
    found, content = _importer()(f"{ENV}/", "tk")
    assert found == TK_LIBRARY_PATH
    assert b'std.extVar("tanka.dev/environment")' in content


def test_not_found_uses_go_jsonnet_words() -> None:
    with pytest.raises(ImportRefused) as info:
        _importer()(f"{ENV}/", "missing.libsonnet")
    assert str(info.value) == (
        'couldn\'t open import "missing.libsonnet": '
        "no match locally or in the Jsonnet library paths"
    )


def test_absolute_path_is_refused_and_named() -> None:
    with pytest.raises(ImportRefused, match=r'"/etc/passwd" refused: absolute import paths'):
        _importer()(f"{ENV}/", "/etc/passwd")


def test_parent_escape_is_refused_and_named() -> None:
    with pytest.raises(ImportRefused) as info:
        _importer()(f"{ENV}/", "../../../outside.libsonnet")
    text = str(info.value)
    assert '"../../../outside.libsonnet" refused' in text
    assert str(FIXTURES / "outside.libsonnet") in text


def test_symlink_leaving_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "lib").mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("token")
    os.symlink(secret, root / "lib" / "link.txt")
    imp = Importer((root / "vendor", root / "vendor", root / "lib", root), confine=root)
    with pytest.raises(ImportRefused, match=r"is a symlink to .*secret\.txt, outside"):
        imp(f"{root}/", "link.txt")


@pytest.mark.parametrize("rel", ["../.git/config", "../.GIT/config", "gitdir/config"])
def test_nothing_under_git_can_be_imported(tmp_path: Path, rel: str) -> None:
    # .git holds the remote URL (credentials, for some checkouts); the file tools refuse it too.
    root = tmp_path / "root"
    (root / "env").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("url = https://user:token@example.com/r.git\n")
    (root / ".GIT").mkdir()
    (root / ".GIT" / "config").write_text("url = https://user:token@example.com/r.git\n")
    os.symlink(root / ".git", root / "env" / "gitdir")
    imp = Importer((root,), confine=root)
    with pytest.raises(ImportRefused, match=r"refused: nothing under \.git/ may be imported"):
        imp(f"{root}/env/", rel)


def test_trusted_absolute_entrypoint_is_allowed() -> None:
    imp = Importer((STATIC / "lib",), confine=STATIC, trusted=[ENV / "main.jsonnet"])
    found, _ = imp("", str(ENV / "main.jsonnet"))
    assert found == str(ENV / "main.jsonnet")


def test_directory_candidate_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "dir.libsonnet").mkdir()
    imp = Importer((tmp_path,), confine=tmp_path)
    with pytest.raises(ImportRefused, match="is a directory"):
        imp(f"{tmp_path}/", "dir.libsonnet")


def test_contents_are_cached_until_the_file_changes(tmp_path: Path) -> None:
    lib = tmp_path / "a.libsonnet"
    lib.write_text("1")
    imp = Importer((tmp_path,), confine=tmp_path)
    assert imp("", "a.libsonnet")[1] == b"1"
    lib.write_text("22")
    assert imp("", "a.libsonnet")[1] == b"22"


def test_prelude_only_for_jsonnet_files_using_natives(tmp_path: Path) -> None:
    (tmp_path / "n.libsonnet").write_text("std.native('sha256')('x')")
    (tmp_path / "n.yaml").write_text("std.native('sha256')")
    imp = Importer((tmp_path,), confine=tmp_path)
    assert imp("", "n.libsonnet")[1].startswith(PRELUDE.encode())
    assert imp("", "n.yaml")[1] == b"std.native('sha256')"
