"""The import scanner (lexer-level) and resolution along tk's jpath, against real files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import _gojsonnet
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tools.tanka.imports.graph import ImportScanner, resolve_import, search_path
from tools.tanka.imports.scan import ImportRef, scan_imports

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_tools" / "repo"


def paths(source: str) -> list[tuple[str, str]]:
    result = scan_imports(source)
    assert result.error is None, result.error
    return [(ref.kind, ref.path) for ref in result.imports]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


# --- scanning -----------------------------------------------------------------------------


def test_all_three_keywords_with_every_string_form() -> None:
    source = (
        "local a = import 'a.libsonnet';\n"
        'local b = importstr "b.txt";\n'
        "local c = importbin @'c''s.bin';\n"
        'local d = import @"d""q.jsonnet";\n'
        "local e = import /* between */ 'e.libsonnet';\n"
        "{ f: (import 'f.libsonnet').x }\n"
    )
    assert paths(source) == [
        ("import", "a.libsonnet"),
        ("importstr", "b.txt"),
        ("importbin", "c's.bin"),
        ("import", 'd"q.jsonnet'),
        ("import", "e.libsonnet"),
        ("import", "f.libsonnet"),
    ]


def test_comments_and_string_contents_are_not_imports() -> None:
    source = (
        "// import 'line.libsonnet'\n"
        "# import 'hash.libsonnet'\n"
        "/* import 'block.libsonnet'\n   import 'block2.libsonnet' */\n"
        "local s = \"import 'in-double.libsonnet' \\\" import 'after-escape'\";\n"
        "local t = 'import \"in-single.libsonnet\"';\n"
        "local v = @'import ''in-verbatim.libsonnet''';\n"
        "local myimport = 1; local importer = myimport;\n"
        "local real = import 'real.libsonnet';\n"
        "{}\n"
    )
    assert paths(source) == [("import", "real.libsonnet")]


def test_text_blocks_are_skipped_whole_including_chomped_and_blank_lines() -> None:
    source = (
        "{\n"
        "  a: |||\n"
        "    import 'in-block.libsonnet'\n"
        "\n"
        "      deeper import 'x'\n"
        "  |||,\n"
        "  b: |||-  \n"
        "\timport 'tab-indented.libsonnet'\n"
        "|||,\n"
        "  c: import 'after.libsonnet',\n"
        "}\n"
    )
    assert paths(source) == [("import", "after.libsonnet")]


def test_escapes_in_paths_are_decoded() -> None:
    assert paths(r"import 'dir\/a\u0042.libsonnet'") == [("import", "dir/aB.libsonnet")]
    assert paths(r'import "it\'s.libsonnet"') == [("import", "it's.libsonnet")]


def test_positions_are_one_based_line_and_column_of_the_keyword() -> None:
    result = scan_imports("{\n  x: \t import 'x.libsonnet',\n}")
    assert result.imports == (ImportRef("import", "x.libsonnet", 2, 8),)


def test_columns_count_utf8_bytes_as_go_jsonnet() -> None:
    # 'é' is two bytes and '日' three: the keyword's column is 19 in bytes (16 in characters),
    # where `tanka-bot tk lint` (go-jsonnet's parser) reports the import too.
    [ref] = scan_imports("{ 'é': '日', b: import 'x' }\n").imports
    assert (ref.line, ref.column) == (1, 19)


def test_computed_and_text_block_imports_are_not_reported() -> None:
    assert paths("local p = 'a'; import p") == []
    assert paths("import |||\n  a.libsonnet\n|||") == []


@pytest.mark.parametrize(
    ("source", "message", "line", "column"),
    [
        ("local x = 'open", "Unterminated String", 1, 11),
        ("{}\n/* never closed", "Multi-line comment has no terminating */", 2, 1),
        ("local x = |||\n  text\n", "Text block not terminated with |||", 1, 11),
        ("local x = ||| junk\n", "Text block requires new line after |||.", 1, 11),
        (
            "local x = |||\nno indent\n|||",
            "Text block's first line must start with whitespace",
            1,
            11,
        ),
        ("local x = @ 'a'", "Couldn't lex verbatim string, junk after '@'", 1, 11),
    ],
)
def test_lex_errors_carry_the_position_of_the_bad_token(
    source: str, message: str, line: int, column: int
) -> None:
    result = scan_imports(source)
    assert result.error is not None
    assert (result.error.message, result.error.line, result.error.column) == (message, line, column)


def test_imports_before_a_lex_error_are_kept() -> None:
    result = scan_imports("local a = import 'a.libsonnet';\nlocal b = 'open")
    assert [r.path for r in result.imports] == ["a.libsonnet"]
    assert result.error is not None


_noise = st.text(alphabet="abc import'\"\\/*#@|\n -", max_size=40)


@given(before=_noise, hidden=_noise)
def test_nothing_inside_a_comment_is_ever_an_import(before: str, hidden: str) -> None:
    clean = hidden.replace("*/", "")
    source = f"/* {clean} */ import 'real.libsonnet'"
    assert paths(source) == [("import", "real.libsonnet")]
    line = "// " + before.replace("\n", " ") + "\nimport 'real.libsonnet'"
    assert paths(line) == [("import", "real.libsonnet")]


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=30))
def test_any_string_literal_path_round_trips_through_the_scanner(path: str) -> None:
    # Escaped with JSON rules, which Jsonnet double-quoted strings share.
    assert paths(f"import {json.dumps(path)}") == [("import", path)]


# --- resolution ---------------------------------------------------------------------------


def test_resolution_order_matches_tk_precedence(tmp_path: Path) -> None:
    root, base = tmp_path, tmp_path / "environments" / "prod"
    layers = ["environments/prod/sub", "environments/prod", "lib", "environments/prod/vendor"]
    write(root, {f"{d}/probe.libsonnet": d for d in [*layers, "vendor"]})
    importer = base / "sub" / "main.jsonnet"
    ref = ImportRef("import", "probe.libsonnet", 1, 1)
    search = search_path(root, base)
    for layer in layers:
        assert resolve_import(ref, importer, search).found == root / layer / "probe.libsonnet"
        (root / layer / "probe.libsonnet").unlink()
    resolution = resolve_import(ref, importer, search)
    assert resolution.found == root / "vendor" / "probe.libsonnet"
    assert len(resolution.probed) == 5


def test_resolution_agrees_with_gojsonnet_jpath_semantics(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "lib/x.libsonnet": "'lib'",
            "vendor/x.libsonnet": "'vendor'",
            "env/vendor/y.libsonnet": "'env vendor'",
            "vendor/y.libsonnet": "'root vendor'",
            "env/main.jsonnet": "[import 'x.libsonnet', import 'y.libsonnet']",
        },
    )
    base = tmp_path / "env"
    jpath = [str(tmp_path / "vendor"), str(base / "vendor"), str(tmp_path / "lib"), str(base)]
    evaluated = _gojsonnet.evaluate_file(str(base / "main.jsonnet"), jpathdir=jpath)
    assert "".join(evaluated.split()) == '["lib","envvendor"]'
    graph = ImportScanner().closure(base / "main.jsonnet", search_path(tmp_path, base))
    assert [r.found for r in graph.resolutions] == [
        tmp_path / "lib" / "x.libsonnet",
        base / "vendor" / "y.libsonnet",
    ]


def test_missing_import_uses_go_jsonnet_wording(tmp_path: Path) -> None:
    ref = ImportRef("import", "nope.libsonnet", 3, 7)
    resolution = resolve_import(ref, tmp_path / "main.jsonnet", search_path(tmp_path, tmp_path))
    assert resolution.found is None
    assert resolution.message == (
        'couldn\'t open import "nope.libsonnet": no match locally or in the Jsonnet library paths'
    )


def test_tk_is_the_builtin_library_never_a_file(tmp_path: Path) -> None:
    (tmp_path / "tk").write_text("{}")
    resolution = resolve_import(
        ImportRef("import", "tk", 1, 1), tmp_path / "m.jsonnet", search_path(tmp_path, tmp_path)
    )
    assert (resolution.found, resolution.error, resolution.probed) == (None, None, ())


def test_a_directory_candidate_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "dir.libsonnet").mkdir()
    resolution = resolve_import(
        ImportRef("import", "dir.libsonnet", 1, 1), tmp_path / "m.jsonnet", ()
    )
    assert resolution.error is not None
    assert "is a directory" in resolution.error


def test_confinement_refuses_paths_leaving_the_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(tmp_path, {"secret.libsonnet": "{}", "repo/main.jsonnet": ""})
    for path in ("../secret.libsonnet", str(tmp_path / "secret.libsonnet")):
        ref = ImportRef("importstr", path, 1, 1)
        resolution = resolve_import(ref, repo / "main.jsonnet", (), confine=repo)
        assert resolution.found is None
        assert resolution.error is not None
        assert "leaves the repository" in resolution.error


def test_confinement_refuses_the_git_directory(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(tmp_path, {"repo/.git/config": "[core]", "repo/main.jsonnet": ""})
    for path in (".git/config", "./.GIT/config", "lib/../.git/config"):
        ref = ImportRef("importstr", path, 1, 1)
        resolution = resolve_import(ref, repo / "main.jsonnet", (), confine=repo)
        assert resolution.found is None
        assert resolution.error is not None
        assert ".git directory" in resolution.error


# --- transitive closure -------------------------------------------------------------------


def test_closure_of_fixture_env_follows_lib_into_vendor() -> None:
    root = FIXTURE
    base = root / "environments" / "alpha"
    graph = ImportScanner().closure(base / "main.jsonnet", search_path(root, base))
    relative = sorted(str(p.relative_to(root)) for p in graph.files)
    assert relative == [
        "environments/alpha/config.libsonnet",
        "environments/alpha/main.jsonnet",
        "lib/banner.txt",
        "lib/common.libsonnet",
        "lib/k.libsonnet",
        "vendor/github.com/acme/k8s/gen.libsonnet",
        "vendor/github.com/acme/k8s/main.libsonnet",
    ]
    assert graph.unresolved == []


def test_cycles_terminate_and_importstr_targets_are_not_scanned(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "main.jsonnet": "import 'a.libsonnet'",
            "a.libsonnet": "import 'b.libsonnet'",
            "b.libsonnet": "{ a:: import 'a.libsonnet', s: importstr 'data.jsonnet' }",
            "data.jsonnet": "import 'never-followed.libsonnet'",
        },
    )
    graph = ImportScanner().closure(tmp_path / "main.jsonnet", ())
    assert {p.name for p in graph.files} == {
        "main.jsonnet",
        "a.libsonnet",
        "b.libsonnet",
        "data.jsonnet",
    }
    assert graph.unresolved == []


def test_symlink_loops_terminate(tmp_path: Path) -> None:
    write(tmp_path, {"main.jsonnet": "import 'loop/main.jsonnet'"})
    (tmp_path / "loop").symlink_to(tmp_path)
    graph = ImportScanner().closure(tmp_path / "main.jsonnet", ())
    assert tmp_path / "loop" / "main.jsonnet" in graph.files


def test_scan_cache_notices_changed_files(tmp_path: Path) -> None:
    target = tmp_path / "f.libsonnet"
    target.write_text("import 'one.libsonnet'")
    scanner = ImportScanner()
    first = scanner.scan_file(target)
    assert scanner.scan_file(target) is first  # unchanged file: served from the cache
    target.write_text("import 'two.libsonnet', import 'three'")
    stamp = target.stat().st_mtime_ns + 1_000_000
    os.utime(target, ns=(stamp, stamp))
    assert [r.path for r in scanner.scan_file(target).imports] == ["two.libsonnet", "three"]


def test_lex_errors_are_reported_per_file(tmp_path: Path) -> None:
    write(tmp_path, {"main.jsonnet": "import 'bad.libsonnet'", "bad.libsonnet": "{ a: 'open }"})
    graph = ImportScanner().closure(tmp_path / "main.jsonnet", ())
    assert list(graph.lex_errors) == [tmp_path / "bad.libsonnet"]
