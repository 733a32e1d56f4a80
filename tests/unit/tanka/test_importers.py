"""`tk tool importers` semantics on a real fixture tree (tests/fixtures/tanka_tools/repo)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tools.tanka.errors import ImportersError
from tools.tanka.imports.graph import ImportScanner
from tools.tanka.imports.importers import format_importers, importers

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_tools" / "repo"
ALL_ENVS = ["alpha", "beta", "binary", "cycle", "gamma", "nested/inner", "textblock"]


def envs(root: Path, *files: str, deleted: tuple[str, ...] = ()) -> list[str]:
    """The affected environments as short names, for readable assertions."""
    prefix = os.path.realpath(root / "environments") + os.sep
    found = importers(root, files, deleted, scanner=ImportScanner())
    assert all(p.startswith(prefix) and p.endswith("/main.jsonnet") for p in found), found
    return [p.removeprefix(prefix).removesuffix("/main.jsonnet") for p in found]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A private copy of the fixture that a test may change."""
    target = tmp_path / "repo"
    shutil.copytree(FIXTURE, target, symlinks=True)
    return target


def test_a_vendored_file_reached_through_lib_affects_every_env_using_it() -> None:
    assert envs(FIXTURE, "vendor/github.com/acme/k8s/gen.libsonnet") == ["alpha", "gamma"]
    assert envs(FIXTURE, "lib/k.libsonnet") == ["alpha", "gamma"]


def test_an_env_level_vendor_override_hides_the_root_vendor_file() -> None:
    assert envs(FIXTURE, "vendor/shadow.libsonnet") == ["beta"]
    assert envs(FIXTURE, "environments/gamma/vendor/shadow.libsonnet") == ["gamma"]


def test_a_changed_main_jsonnet_is_its_own_importer() -> None:
    assert envs(FIXTURE, "environments/cycle/main.jsonnet") == ["cycle"]


def test_relative_imports_across_environments() -> None:
    assert envs(FIXTURE, "environments/alpha/config.libsonnet") == ["alpha", "beta"]


def test_imports_in_comments_strings_and_text_blocks_do_not_count() -> None:
    assert envs(FIXTURE, "lib/unused.libsonnet") == []
    assert envs(FIXTURE, "lib/only-in-string.libsonnet") == []


def test_importstr_and_importbin_targets_are_dependencies() -> None:
    assert envs(FIXTURE, "lib/banner.txt") == ["alpha"]
    assert envs(FIXTURE, "environments/binary/blob.bin") == ["binary"]


def test_import_cycles_terminate() -> None:
    assert envs(FIXTURE, "environments/cycle/pong.libsonnet") == ["cycle"]


def test_a_file_that_is_not_imported_belongs_to_the_env_around_it() -> None:
    assert envs(FIXTURE, "environments/alpha/spec.json") == ["alpha"]


def test_a_file_above_environments_affects_every_env_below_it() -> None:
    assert envs(FIXTURE, "environments/nested/shared.libsonnet") == ["nested/inner"]
    assert envs(FIXTURE, "README.md") == ALL_ENVS


def test_several_files_give_the_union_sorted() -> None:
    assert envs(FIXTURE, "lib/banner.txt", "vendor/shadow.libsonnet") == ["alpha", "beta"]


def test_deleted_files_use_the_deleted_prefix_or_argument(repo: Path) -> None:
    (repo / "environments" / "alpha" / "config.libsonnet").unlink()
    assert envs(repo, "deleted:environments/alpha/config.libsonnet") == ["alpha", "beta"]
    assert envs(repo, deleted=("environments/alpha/config.libsonnet",)) == ["alpha", "beta"]


def test_a_deleted_environment_is_still_listed(repo: Path) -> None:
    shutil.rmtree(repo / "environments" / "cycle")
    assert envs(repo, "deleted:environments/cycle/main.jsonnet") == ["cycle"]
    assert envs(repo, "deleted:environments/cycle/ping.libsonnet") == []


def test_adding_a_file_that_shadows_an_import_affects_the_envs_it_redirects(repo: Path) -> None:
    # lib/ comes before <env>/vendor and <root>/vendor in tk's jpath.
    (repo / "lib" / "shadow.libsonnet").write_text("{ shadow: 'lib' }\n")
    assert envs(repo, "lib/shadow.libsonnet") == ["beta", "gamma"]
    (repo / "lib" / "shadow.libsonnet").unlink()
    assert envs(repo, "deleted:lib/shadow.libsonnet") == ["beta", "gamma"]


def test_files_reached_through_a_symlinked_vendor_directory(repo: Path) -> None:
    (repo / "vendor" / "k8s-1.0").symlink_to("github.com/acme/k8s")
    env = repo / "environments" / "linked"
    env.mkdir()
    (env / "main.jsonnet").write_text("import 'k8s-1.0/gen.libsonnet'\n")
    assert envs(repo, "vendor/github.com/acme/k8s/gen.libsonnet") == ["alpha", "gamma", "linked"]
    assert envs(repo, "vendor/k8s-1.0/gen.libsonnet") == ["alpha", "gamma", "linked"]


def test_output_is_absolute_resolved_paths_as_tk_prints_them() -> None:
    found = importers(FIXTURE, ["lib/banner.txt"])
    assert found == [os.path.realpath(FIXTURE / "environments/alpha/main.jsonnet")]
    assert format_importers(found) == found[0] + "\n"
    assert format_importers([]) == "\n"


def test_absolute_paths_are_accepted() -> None:
    assert envs(FIXTURE, str(FIXTURE / "lib" / "banner.txt")) == ["alpha"]


def test_a_missing_file_is_an_error_that_suggests_the_deleted_prefix() -> None:
    with pytest.raises(ImportersError, match=r'"lib/gone.libsonnet" does not exist.*deleted:'):
        importers(FIXTURE, ["lib/gone.libsonnet"])


def test_a_root_that_is_not_a_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ImportersError, match="not a directory"):
        importers(tmp_path / "nowhere", ["x"])
