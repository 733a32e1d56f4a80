"""Root and base discovery with tk's rules and error texts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tools.tanka.errors import NoBaseError, NoRootError, PathNotFoundError
from tools.tanka.project import find_base, find_root, resolve_env_paths

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tanka"
STATIC = FIXTURES / "static"


def test_root_from_env_dir_file_and_subdirectory() -> None:
    env = STATIC / "environments" / "prod"
    assert find_root(env) == STATIC
    assert find_root(env / "main.jsonnet") == STATIC
    assert find_root(env / "nested") == STATIC


def test_tkrc_beats_a_nearer_jsonnetfile(tmp_path: Path) -> None:
    (tmp_path / "tkrc.yaml").write_text("")
    env = tmp_path / "environments" / "x"
    env.mkdir(parents=True)
    (env / "jsonnetfile.json").write_text("{}")
    assert find_root(env) == tmp_path


def test_jsonnetfile_is_root_without_tkrc(tmp_path: Path) -> None:
    env = tmp_path / "environments" / "x"
    env.mkdir(parents=True)
    (tmp_path / "jsonnetfile.json").write_text("{}")
    (env / "jsonnetfile.json").write_text("{}")
    assert find_root(env) == env  # tk's "localvendor" consequence


def test_no_root_error_text(tmp_path: Path) -> None:
    with pytest.raises(NoRootError) as info:
        find_root(tmp_path)
    assert str(info.value).startswith("unable to identify the project root.\nTried to find")


def test_base_is_found_from_subdirectory_and_file() -> None:
    env = STATIC / "environments" / "prod"
    assert find_base(env / "nested", STATIC) == env
    paths = resolve_env_paths(env / "nested")
    assert paths.entrypoint == env / "main.jsonnet"
    assert paths.name == "environments/prod"
    assert paths.entrypoint_rel == "environments/prod/main.jsonnet"


def test_custom_entrypoint_file_name(tmp_path: Path) -> None:
    (tmp_path / "jsonnetfile.json").write_text("{}")
    (tmp_path / "custom.jsonnet").write_text("{}")
    paths = resolve_env_paths(tmp_path / "custom.jsonnet")
    assert paths.entrypoint == tmp_path / "custom.jsonnet"
    assert paths.name == "."


def test_no_base_error_names_the_file() -> None:
    with pytest.raises(NoBaseError) as info:
        find_base(STATIC / "lib", STATIC)
    assert "Tried to find 'main.jsonnet' in the parent directories." in str(info.value)


def test_missing_path_is_go_stat_error(tmp_path: Path) -> None:
    with pytest.raises(PathNotFoundError) as info:
        find_root(tmp_path / "nope")
    assert str(info.value) == f"stat {tmp_path / 'nope'}: no such file or directory"


def test_directories_without_the_marker_are_not_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A repository of thousands of environments: each one's discovery used to list the folder
    # holding all of them, for every marker.
    (tmp_path / "jsonnetfile.json").write_text("{}")
    for i in range(3):
        (tmp_path / "environments" / f"env{i}").mkdir(parents=True)
        (tmp_path / "environments" / f"env{i}" / "main.jsonnet").write_text("{}")
    listed: list[str] = []
    scandir = os.scandir

    def counted(path: Path) -> Any:
        listed.append(Path(path).relative_to(tmp_path).as_posix())
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    paths = resolve_env_paths(tmp_path / "environments" / "env1" / "main.jsonnet")
    assert (paths.root, paths.base) == (tmp_path, tmp_path / "environments" / "env1")
    assert listed == [".", "environments/env1"]  # only where the names are
