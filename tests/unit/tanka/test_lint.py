"""Validation: syntax, imports, go-jsonnet's linter in process and the static evaluation check."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tools.tanka.source import lint
from tools.tanka.source.lint import format_diagnostics, lint_paths

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_tools" / "lint"


def found(paths: list[Path], root: Path = FIXTURE) -> list[tuple[str, int, int, str]]:
    return [(d.path, d.line, d.column, d.check) for d in lint_paths(paths, root=root)]


def test_the_fixture_repository_gives_one_diagnostic_per_problem() -> None:
    assert found([FIXTURE]) == [
        ("environments/broken/main.jsonnet", 3, 3, "syntax"),
        ("environments/escape/main.jsonnet", 1, 11, "import"),
        ("lib/missing-import.libsonnet", 3, 14, "import"),
        ("lib/top-level-error.libsonnet", 1, 32, "static"),
        ("lib/unknown-var.libsonnet", 2, 19, "static"),
    ]


def test_a_valid_environment_with_tk_lib_and_vendor_imports_is_valid() -> None:
    diagnostics = lint_paths([FIXTURE / "environments" / "good" / "main.jsonnet"], root=FIXTURE)
    assert diagnostics == []
    assert format_diagnostics(diagnostics) == "✓ valid"


def test_messages_name_file_line_column_and_the_problem() -> None:
    text = format_diagnostics(lint_paths([FIXTURE], root=FIXTURE))
    lines = text.splitlines()
    assert lines[0] == (
        "environments/broken/main.jsonnet:3:3: error: Expected a comma before next field"
    )
    assert lines[2] == (
        "lib/missing-import.libsonnet:3:14: error: couldn't open import "
        '"github.com/acme/not-installed.libsonnet": no match locally or in the Jsonnet '
        "library paths"
    )
    assert "Unknown variable: replicas" in lines[4]
    assert "x must be at most 1" in lines[3]
    assert "leaves the repository" in lines[1]
    assert str(FIXTURE) not in text  # no host paths in messages


def test_a_syntax_error_is_reported_alone(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonnet"
    bad.write_text("local x = import 'missing.libsonnet';\n{ a: }\n")
    assert found([bad], tmp_path) == [("bad.jsonnet", 2, 6, "syntax")]


def test_an_error_inside_an_imported_file_points_at_that_file(tmp_path: Path) -> None:
    (tmp_path / "lib.libsonnet").write_text("{\n  a: nope,\n}\n")
    (tmp_path / "main.jsonnet").write_text("(import 'lib.libsonnet') + {}\n")
    assert found([tmp_path / "main.jsonnet"], tmp_path) == [("lib.libsonnet", 2, 6, "static")]


def test_undecodable_files_are_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "latin1.jsonnet").write_bytes(b"{ a: '\xe9' }")
    [diagnostic] = lint_paths([tmp_path], root=tmp_path)
    assert diagnostic.message.startswith("cannot read the file")


def test_a_static_check_timeout_becomes_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "x.jsonnet").write_text("{}\n")
    monkeypatch.setattr(lint, "STATIC_TIMEOUT", 0.001)
    [diagnostic] = lint_paths([tmp_path], root=tmp_path)
    assert (diagnostic.severity, diagnostic.check) == ("warning", "static")
    assert "timed out" in diagnostic.message


def test_type_findings_follow_tk_jpath_into_libraries(tmp_path: Path) -> None:
    # The type checker (go-jsonnet's, in process) sees what a vendored library exports.
    shutil.copytree(FIXTURE, tmp_path / "repo")
    repo = tmp_path / "repo"
    (repo / "vendor" / "app.libsonnet").write_text("{ deployment(name):: { name: name } }\n")
    env = repo / "environments" / "typed" / "main.jsonnet"
    env.parent.mkdir()
    env.write_text(
        "local app = import 'app.libsonnet';\n{ d: app.deployment('a', 3), e: app.svc }\n"
    )
    diagnostics = lint_paths([env], root=repo)
    assert [(d.span, d.check, d.message) for d in diagnostics] == [
        ("2:26-27", "jsonnet-lint", "Too many arguments, there can be at most 1, but 2 provided"),
        ("2:33-40", "jsonnet-lint", 'Indexed object has no field "svc"'),
    ]


def test_python_files_in_the_checkout_never_run_in_the_static_check(tmp_path: Path) -> None:
    # The checkout is the agent's to write: a json.py (or tools/...) in it must not shadow the
    # modules of the static-check child, which would run the agent's code on the bot's host.
    repo = tmp_path / "repo"
    (repo / "environments" / "a").mkdir(parents=True)
    (repo / "jsonnetfile.json").write_text("{}")
    (repo / "environments" / "a" / "main.jsonnet").write_text("{ a: 1 }\n")
    marker = tmp_path / "ran"
    planted = f"open({str(marker)!r}, 'w').close()\nfrom importlib import import_module\n"
    (repo / "json.py").write_text(planted)
    (repo / "tools").mkdir()
    (repo / "tools" / "__init__.py").write_text(planted)
    assert lint_paths([repo / "environments" / "a" / "main.jsonnet"], root=repo) == []
    assert not marker.exists()


def test_in_process_linter_findings_keep_go_jsonnet_spans_and_checks(tmp_path: Path) -> None:
    (tmp_path / "jsonnetfile.json").write_text("{}")
    (tmp_path / "main.jsonnet").write_text(
        "local tk = import 'tk';\nlocal loop = loop + 1, unused = 2;\n{ ns: tk.env }\n"
    )
    diagnostics = lint_paths([tmp_path / "main.jsonnet"], root=tmp_path)
    # In go-jsonnet's order, as tk lint prints them: unused variables, then the traversal's.
    assert [(d.span, d.check, d.message) for d in diagnostics] == [
        ("2:24-34", "unused", "Unused variable: unused"),
        ("2:14-18", "jsonnet-lint", "Endless loop in local definition"),
    ]


def test_a_syntax_error_in_an_imported_file_is_reported_in_that_file(tmp_path: Path) -> None:
    (tmp_path / "lib.libsonnet").write_text("{\n  a: ,\n}\n")
    (tmp_path / "main.jsonnet").write_text("import 'lib.libsonnet'\n")
    diagnostics = lint_paths([tmp_path / "main.jsonnet"], root=tmp_path)
    assert [(d.path, d.span, d.check, d.message) for d in diagnostics] == [
        ("lib.libsonnet", "2:6-7", "syntax", 'Unexpected: "," while parsing terminal')
    ]


def test_broken_imports_of_imported_files_are_reported_where_they_are(tmp_path: Path) -> None:
    (tmp_path / "lib.libsonnet").write_text("{ a: importstr 'gone.txt' }\n")
    (tmp_path / "main.jsonnet").write_text("import 'lib.libsonnet'\n")
    diagnostics = lint_paths([tmp_path / "main.jsonnet"], root=tmp_path)
    assert [(d.path, d.span, d.check) for d in diagnostics] == [
        ("lib.libsonnet", "1:6-26", "import")
    ]


def test_import_paths_are_quoted_as_go_does(tmp_path: Path) -> None:
    # testdata/nonexistent_import_crazy.linter.golden (go-jsonnet 923f51b8): non-ASCII kept,
    # quotes and control characters escaped.
    (tmp_path / "main.jsonnet").write_text("importstr 'ąę \" \\n\\t'\n")
    [diagnostic] = lint_paths([tmp_path / "main.jsonnet"], root=tmp_path)
    assert diagnostic.message == (
        'couldn\'t open import "ąę \\" \\n\\t": no match locally or in the Jsonnet library paths'
    )
