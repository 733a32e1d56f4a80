"""The file_* tools against a real directory tree, called the way the agent loop calls them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tools.context import ToolContext
from tools.files import TOOLS
from tools.registry import ToolOutcome, ToolRegistry

REGISTRY = ToolRegistry(TOOLS)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "repo"
    (root / "environments" / "prod").mkdir(parents=True)
    (root / "environments" / "prod" / "main.jsonnet").write_text("{ replicas: 3 }\n")
    (root / "environments" / "dev").mkdir()
    (root / "environments" / "dev" / "main.jsonnet").write_text("{ replicas: 1 }\n")
    (root / "lib").mkdir()
    (root / "lib" / "app.libsonnet").write_text("{\n  image: 'app:1.0',\n  port: 80,\n}\n")
    (root / ".github").mkdir()
    (root / ".github" / "ci.yml").write_text("on: push\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    return ToolContext(root=root, protected_paths=(".github/**", ".git/**"))


def call(ctx: ToolContext, name: str, **args: Any) -> ToolOutcome:
    return REGISTRY.execute(ctx, name, args)


def ok(ctx: ToolContext, name: str, **args: Any) -> str:
    outcome = call(ctx, name, **args)
    assert not outcome.is_error, outcome.content
    return outcome.content


def error(ctx: ToolContext, name: str, **args: Any) -> str:
    outcome = call(ctx, name, **args)
    assert outcome.is_error, outcome.content
    return outcome.content


def test_names_and_parameters_follow_the_contract() -> None:
    params = {spec.name: set(spec.input_schema["properties"]) for spec in REGISTRY.specs()}
    assert params == {
        "file_read": {"path", "offset", "limit"},
        "file_write": {"path", "content"},
        "file_edit": {"path", "old_text", "new_text"},
        "file_list": {"glob_pattern", "offset", "limit"},
        "file_search": {"glob_pattern", "text_query", "offset", "limit"},
        "file_delete": {"path"},
    }


def test_read_pages_with_the_seed_header(ctx: ToolContext) -> None:
    (ctx.root / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 1201)))
    first = ok(ctx, "file_read", path="big.txt")
    header, *body = first.splitlines()
    assert (
        header == "[big.txt: lines 1\u2013500 of 1200] (700 more lines, use offset=500 to continue)"
    )
    assert body[0] == "line 1"
    assert body[-1] == "line 500"
    last = ok(ctx, "file_read", path="big.txt", offset=1100, limit=500)
    assert last.splitlines()[0] == "[big.txt: lines 1101\u20131200 of 1200]"
    assert "past the end" in error(ctx, "file_read", path="big.txt", offset=1200)
    assert "less than or equal to 500" in error(ctx, "file_read", path="big.txt", limit=501)


def test_read_keeps_pages_under_the_output_cap(ctx: ToolContext) -> None:
    (ctx.root / "wide.txt").write_text(("x" * 1000 + "\n") * 100)
    out = ok(ctx, "file_read", path="wide.txt")
    assert out.startswith("[wide.txt: lines 1\u201323 of 100] (77 more lines, use offset=23")
    (ctx.root / "min.json").write_text("[" + "1," * 5000 + "1]")
    assert "more chars]" in ok(ctx, "file_read", path="min.json")


def test_read_refuses_escapes_git_and_binary(ctx: ToolContext, tmp_path: Path) -> None:
    (ctx.root / "link").symlink_to(tmp_path / "outside.txt")
    (ctx.root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    assert "'..'" in error(ctx, "file_read", path="../outside.txt")
    assert "absolute" in error(ctx, "file_read", path=str(tmp_path / "outside.txt"))
    assert "outside the repository" in error(ctx, "file_read", path="link")
    assert ".git/" in error(ctx, "file_read", path=".git/config")
    assert "binary" in error(ctx, "file_read", path="logo.png")
    assert "does not exist" in error(ctx, "file_read", path="nope.jsonnet")
    ok(ctx, "file_write", path="e", content="")
    assert ok(ctx, "file_read", path="e") == "[e: empty file (0 lines)]"


def test_write_creates_replaces_and_refuses_protected(ctx: ToolContext) -> None:
    assert ok(ctx, "file_write", path="environments/stg/main.jsonnet", content="{}\n").startswith(
        "created environments/stg/main.jsonnet"
    )
    assert (ctx.root / "environments/stg/main.jsonnet").read_text() == "{}\n"
    assert ok(ctx, "file_write", path="lib/app.libsonnet", content="{}").startswith("replaced")
    assert "protected" in error(ctx, "file_write", path=".github/ci.yml", content="x")
    assert (ctx.root / ".github/ci.yml").read_text() == "on: push\n"
    assert ".git/" in error(ctx, "file_write", path=".git/hooks/pre-commit", content="x")
    assert not (ctx.root / ".git/hooks").exists()
    assert "directory" in error(ctx, "file_write", path="lib", content="x")


def test_gitattributes_are_protected_by_default(tmp_path: Path) -> None:
    # `*.libsonnet -diff` would make the proposal read "Binary files ... differ".
    ctx = ToolContext(root=tmp_path)
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / ".gitattributes").write_text("*.json text\n")
    assert error(ctx, "file_write", path=".gitattributes", content="*.libsonnet -diff\n") == (
        "file_write failed: path '.gitattributes' is protected (matches '**/.gitattributes'): "
        "it may be read but not changed; ask a human to change it in a separate pull request"
    )
    assert "is protected" in error(ctx, "file_write", path="lib/.gitattributes", content="x")
    assert "is protected" in error(
        ctx, "file_edit", path="lib/.gitattributes", old_text="text", new_text="-diff"
    )
    assert "is protected" in error(ctx, "file_delete", path="lib/.gitattributes")
    assert not (tmp_path / ".gitattributes").exists()
    assert (tmp_path / "lib" / ".gitattributes").read_text() == "*.json text\n"


def test_write_through_an_inside_symlink_changes_the_target(ctx: ToolContext) -> None:
    (ctx.root / "alias.libsonnet").symlink_to("lib/app.libsonnet")
    ok(ctx, "file_write", path="alias.libsonnet", content="{ new: true }\n")
    assert (ctx.root / "lib/app.libsonnet").read_text() == "{ new: true }\n"
    assert (ctx.root / "alias.libsonnet").is_symlink()


def test_edit_requires_exactly_one_occurrence(ctx: ToolContext) -> None:
    out = ok(ctx, "file_edit", path="lib/app.libsonnet", old_text="app:1.0", new_text="app:1.1")
    assert out == "edited lib/app.libsonnet: replaced 1 occurrence (now lines 2\u20132)"
    assert "app:1.1" in (ctx.root / "lib/app.libsonnet").read_text()
    assert "occurred 0 times" in error(
        ctx, "file_edit", path="lib/app.libsonnet", old_text="app:9", new_text="x"
    )
    (ctx.root / "dup.txt").write_text("a\na\na\n")
    assert "occurred 3 times" in error(ctx, "file_edit", path="dup.txt", old_text="a", new_text="b")
    assert (ctx.root / "dup.txt").read_text() == "a\na\na\n"
    assert "empty" in error(ctx, "file_edit", path="dup.txt", old_text="", new_text="b")
    assert "protected" in error(
        ctx, "file_edit", path=".github/ci.yml", old_text="push", new_text="pr"
    )


def test_list_matches_double_star_and_pages(ctx: ToolContext) -> None:
    out = ok(ctx, "file_list", glob_pattern="**/*.jsonnet")
    assert out.splitlines() == [
        '[1\u20132 of 2 files matching "**/*.jsonnet"]',
        "environments/dev/main.jsonnet",
        "environments/prod/main.jsonnet",
    ]
    for i in range(350):
        (ctx.root / "lib" / f"f{i:03}.libsonnet").write_text("{}")
    page = ok(ctx, "file_list", glob_pattern="lib/*.libsonnet").splitlines()
    assert page[0] == (
        '[1\u2013200 of 351 files matching "lib/*.libsonnet"] '
        "(151 more, use offset=200 to continue)"
    )
    assert len(page) == 201
    assert ".git/config" not in ok(ctx, "file_list", glob_pattern="**")
    assert "0 files matching" in ok(ctx, "file_list", glob_pattern="*.nothing")
    assert "may not contain '..'" in error(ctx, "file_list", glob_pattern="../*")


def test_search_reports_file_and_line_and_skips_binary(ctx: ToolContext) -> None:
    (ctx.root / "blob.bin").write_bytes(b"replicas\x00")
    out = ok(ctx, "file_search", glob_pattern="**", text_query="replicas")
    assert out.splitlines() == [
        '[1\u20132 of 2 matches for "replicas"]',
        "(1 binary, oversized or unreadable files skipped)",
        "environments/dev/main.jsonnet:1: { replicas: 1 }",
        "environments/prod/main.jsonnet:1: { replicas: 3 }",
    ]
    (ctx.root / "many.txt").write_text("apiVersion: v1\n" * 412)
    first = ok(ctx, "file_search", glob_pattern="*.txt", text_query="apiVersion")
    assert first.splitlines()[0] == (
        '[1\u2013200 of 412 matches for "apiVersion"] (212 more, use offset=200 to continue)'
    )
    tail = ok(ctx, "file_search", glob_pattern="*.txt", text_query="apiVersion", offset=400)
    assert tail.splitlines()[-1] == "many.txt:412: apiVersion: v1"
    assert "0 matches" in ok(ctx, "file_search", glob_pattern="**", text_query="zzz")


def test_search_never_reads_through_an_outside_symlink(ctx: ToolContext, tmp_path: Path) -> None:
    (ctx.root / "leak.txt").symlink_to(tmp_path / "outside.txt")
    out = ok(ctx, "file_search", glob_pattern="**", text_query="secret")
    assert out.splitlines() == [
        '[0 matches for "secret" in files matching "**"]',
        "(1 binary, oversized or unreadable files skipped)",
    ]


def test_delete_removes_files_links_and_empty_dirs(ctx: ToolContext, tmp_path: Path) -> None:
    assert ok(ctx, "file_delete", path="environments/dev/main.jsonnet") == (
        "deleted environments/dev/main.jsonnet"
    )
    assert not (ctx.root / "environments/dev").exists()
    assert (ctx.root / "environments/prod").exists()
    (ctx.root / "link").symlink_to(tmp_path / "outside.txt")
    ok(ctx, "file_delete", path="link")
    assert (tmp_path / "outside.txt").exists()
    assert "directory" in error(ctx, "file_delete", path="environments")
    assert "protected" in error(ctx, "file_delete", path=".github/ci.yml")
    assert ".git/" in error(ctx, "file_delete", path=".git/config")
    assert "does not exist" in error(ctx, "file_delete", path="nope")


def test_write_below_a_file_is_a_plain_error_without_absolute_paths(ctx: ToolContext) -> None:
    outcome = call(ctx, "file_write", path="lib/app.libsonnet/x.jsonnet", content="1\n")
    assert outcome.is_error
    assert "unexpectedly" not in outcome.content
    assert str(ctx.root) not in outcome.content
    assert "lib/app.libsonnet" in outcome.content
    assert "not a directory" in outcome.content
