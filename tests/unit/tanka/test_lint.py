"""Validation: syntax, imports, go-jsonnet static checks and the optional jsonnet-lint layer."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tools.tanka.source import lint
from tools.tanka.source.lint import Diagnostic, format_diagnostics, lint_paths

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_tools" / "lint"


def found(paths: list[Path], root: Path = FIXTURE) -> list[tuple[str, int, int, str]]:
    return [(d.path, d.line, d.column, d.check) for d in lint_paths(paths, root=root)]


@pytest.fixture(autouse=True)
def _no_jsonnet_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    # Results must not depend on whether this machine happens to have jsonnet-lint.
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))


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


# A stand-in jsonnet-lint: records its arguments, reports every `local unused` as the real tool
# does (`file:l:c-c message`, blank line, excerpt, `Problems found!`, exit 2).
FAKE_LINT = f"""#!{sys.executable}
import json, re, sys
with open(sys.argv[0] + ".args", "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
path = sys.argv[-1]
problems = 0
for number, line in enumerate(open(path), 1):
    match = re.search(r"local (unused\\w*)", line)
    if match:
        problems += 1
        start = match.start(1) + 1
        end = start + len(match.group(1))
        where = f"{{path}}:{{number}}:{{start}}-{{end}}"
        print(f"{{where}} Unused variable: {{match.group(1)}}", file=sys.stderr)
        print("\\n  " + line.rstrip() + "\\n\\n", file=sys.stderr)
if problems:
    print("Problems found!", file=sys.stderr)
sys.exit(2 if problems else 0)
"""


def test_jsonnet_lint_on_path_adds_its_findings_with_tk_jpath(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(FIXTURE, tmp_path / "repo")
    repo = tmp_path / "repo"
    env = repo / "environments" / "good" / "main.jsonnet"
    # Used, so only the fake jsonnet-lint (which reports any `local unused...`) finds it.
    env.write_text("local unusedThing = {};\nunusedThing + " + env.read_text())
    fake = tmp_path / "bin" / "jsonnet-lint"
    fake.parent.mkdir()
    fake.write_text(FAKE_LINT)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{Path(sys.executable).parent}")
    diagnostics = lint_paths([env], root=repo)
    assert diagnostics == [
        Diagnostic(
            "environments/good/main.jsonnet",
            1,
            7,
            "Unused variable: unusedThing",
            "error",
            "jsonnet-lint",
        )
    ]
    [args] = [json.loads(line) for line in Path(f"{fake}.args").read_text().splitlines()]
    jpaths = [args[i + 1] for i, a in enumerate(args) if a == "-J"]
    base = repo / "environments" / "good"
    # Right-most -J wins in jsonnet-lint: tk's order, lowest precedence first.
    assert jpaths == [str(repo / "vendor"), str(base / "vendor"), str(repo / "lib"), str(base)]


def test_jsonnet_lint_can_be_switched_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "jsonnet-lint"
    fake.parent.mkdir()
    fake.write_text(FAKE_LINT)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{Path(sys.executable).parent}")
    (tmp_path / "main.jsonnet").write_text("local unused = {};\nunused\n")  # see FAKE_LINT
    assert lint_paths([tmp_path], root=tmp_path, jsonnet_lint=False) == []
    assert [d.check for d in lint_paths([tmp_path], root=tmp_path)] == ["jsonnet-lint"]


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
    diagnostics = lint_paths([tmp_path / "main.jsonnet"], root=tmp_path, jsonnet_lint=False)
    assert [(d.span, d.check, d.message) for d in diagnostics] == [
        ("2:14-18", "jsonnet-lint", "Endless loop in local definition"),
        ("2:24-34", "unused", "Unused variable: unused"),
    ]


def test_a_syntax_error_in_an_imported_file_is_reported_in_that_file(tmp_path: Path) -> None:
    (tmp_path / "lib.libsonnet").write_text("{\n  a: ,\n}\n")
    (tmp_path / "main.jsonnet").write_text("import 'lib.libsonnet'\n")
    diagnostics = lint_paths([tmp_path / "main.jsonnet"], root=tmp_path, jsonnet_lint=False)
    assert [(d.path, d.span, d.check, d.message) for d in diagnostics] == [
        ("lib.libsonnet", "2:6-7", "syntax", 'Unexpected: "," while parsing terminal')
    ]


def test_broken_imports_of_imported_files_are_reported_where_they_are(tmp_path: Path) -> None:
    (tmp_path / "lib.libsonnet").write_text("{ a: importstr 'gone.txt' }\n")
    (tmp_path / "main.jsonnet").write_text("import 'lib.libsonnet'\n")
    diagnostics = lint_paths([tmp_path / "main.jsonnet"], root=tmp_path, jsonnet_lint=False)
    assert [(d.path, d.span, d.check) for d in diagnostics] == [
        ("lib.libsonnet", "1:6-26", "import")
    ]


def test_import_paths_are_quoted_as_go_does(tmp_path: Path) -> None:
    # testdata/nonexistent_import_crazy.linter.golden (go-jsonnet 923f51b8): non-ASCII kept,
    # quotes and control characters escaped.
    (tmp_path / "main.jsonnet").write_text("importstr 'ąę \" \\n\\t'\n")
    [diagnostic] = lint_paths([tmp_path / "main.jsonnet"], root=tmp_path, jsonnet_lint=False)
    assert diagnostic.message == (
        'couldn\'t open import "ąę \\" \\n\\t": no match locally or in the Jsonnet library paths'
    )
