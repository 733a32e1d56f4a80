"""The jb_* tools as the model calls them, through the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.jb.conftest import Server
from tools.context import ToolContext
from tools.engine_tools.jb import TOOLS, make_tools
from tools.registry import ToolRegistry

LIB = "github.com/acme/libs"


@pytest.fixture
def registry(server: Server) -> ToolRegistry:
    server.repo(LIB).commit({"util/main.libsonnet": "{}\n"})
    return ToolRegistry(make_tools(git=server.runner))


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    (project / "environments" / "prod").mkdir(parents=True)
    return ToolContext(root=project)


def test_default_tools_have_the_contract_names() -> None:
    assert [tool.name for tool in TOOLS] == ["jb_init", "jb_install", "jb_update", "jb_list"]
    specs = {tool.name: tool.spec().input_schema for tool in TOOLS}
    assert specs["jb_install"]["required"] == ["path"]
    assert "packages" in specs["jb_update"]["properties"]


def test_init_install_list_update(registry: ToolRegistry, ctx: ToolContext) -> None:
    out = registry.execute(ctx, "jb_init", {"path": "."})
    assert not out.is_error
    assert "Created ./jsonnetfile.json" in out.content

    out = registry.execute(ctx, "jb_install", {"path": ".", "packages": [f"{LIB}/util"]})
    assert not out.is_error, out.content
    assert "1 package(s) fetched; wrote jsonnetfile.json and jsonnetfile.lock.json" in out.content
    assert f"fetched {LIB}/util @ master -> commit " in out.content
    assert f"+ {LIB}/util " in out.content

    listed = registry.execute(ctx, "jb_list", {"path": "."}).content
    assert f"{LIB}/util declared master, locked " in listed
    assert "vendor/ matches the lock" in listed

    again = registry.execute(ctx, "jb_install", {"path": ".", "packages": []}).content
    assert "nothing changed; 1 package(s) already at their locked versions" in again

    updated = registry.execute(ctx, "jb_update", {"path": ".", "packages": []})
    assert not updated.is_error
    assert "wrote jsonnetfile.lock.json" in updated.content


def test_tools_work_in_a_subdirectory(registry: ToolRegistry, ctx: ToolContext) -> None:
    registry.execute(ctx, "jb_init", {"path": "environments/prod"})
    out = registry.execute(ctx, "jb_install", {"path": "environments/prod", "packages": [LIB]})
    assert "jb install in environments/prod/" in out.content
    assert (ctx.root / "environments/prod/vendor" / LIB / "util/main.libsonnet").is_file()
    assert not (ctx.root / "vendor").exists()


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("jb_init", {"path": "../outside"}, "'..' may not be used"),
        ("jb_init", {"path": "/etc"}, "absolute path"),
        ("jb_install", {"path": "."}, "no jsonnetfile.json in the repository root; run jb_init"),
        ("jb_list", {"path": "."}, "run jb_init"),
        ("jb_update", {"path": "environments/missing"}, "not a directory"),
        ("jb_install", {"path": ".git"}, ".git"),
    ],
)
def test_errors_say_what_to_do(
    registry: ToolRegistry, ctx: ToolContext, name: str, args: dict[str, str], message: str
) -> None:
    out = registry.execute(ctx, name, args)
    assert out.is_error
    assert message in out.content


def test_bad_version_error_names_available_refs(registry: ToolRegistry, ctx: ToolContext) -> None:
    registry.execute(ctx, "jb_init", {"path": "."})
    out = registry.execute(ctx, "jb_install", {"path": ".", "packages": [f"{LIB}@main"]})
    assert out.is_error
    assert "version 'main' not found" in out.content
    assert f"e.g. {LIB}@master" in out.content
    assert not (ctx.root / "vendor").exists()


def test_malformed_jsonnetfile_error_has_position(registry: ToolRegistry, ctx: ToolContext) -> None:
    (ctx.root / "jsonnetfile.json").write_text('{"version": 1,,}')
    out = registry.execute(ctx, "jb_install", {"path": "."})
    assert out.is_error
    assert "line 1 column 15" in out.content


def test_protected_directory_is_not_written(server: Server, project: Path) -> None:
    registry = ToolRegistry(make_tools(git=server.runner))
    (project / "locked").mkdir()
    ctx = ToolContext(root=project, protected_paths=("locked/**",))
    out = registry.execute(ctx, "jb_init", {"path": "locked"})
    assert out.is_error
    assert "protected" in out.content
    assert not (project / "locked" / "jsonnetfile.json").exists()
