"""`tanka-bot tk fmt` and `tk lint` with tk's flags: -t, --stdout, -v, -e, `-` (stdin), -n."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.cli import main
from tests.git import git

MESSY = "{a:1}\n"
TIDY = "{ a: 1 }\n"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tk", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "messy.libsonnet").write_text(MESSY)
    (tmp_path / "lib" / "tidy.libsonnet").write_text(TIDY)
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "theirs.libsonnet").write_text(MESSY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_fmt_test_short_flag_exits_16_and_names_the_files_on_stderr(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "fmt", "-t", ".")
    assert (code, out) == (16, "")
    assert err == "The following files are not properly formatted:\nlib/messy.libsonnet\n"
    assert (tree / "lib" / "messy.libsonnet").read_text() == MESSY


def test_fmt_stdout_prints_every_file_and_writes_none(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "fmt", "--stdout", "lib")
    assert code == 0
    assert out == f"// lib/messy.libsonnet\n{TIDY}// lib/tidy.libsonnet\n{TIDY}"
    assert err.endswith("Formatted 1 files\n")
    assert (tree / "lib" / "messy.libsonnet").read_text() == MESSY


def test_fmt_verbose_names_each_file_as_tk(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "fmt", "-v", "lib")
    assert code == 0
    assert out == "fmt lib/messy.libsonnet\nok  lib/tidy.libsonnet\n"
    assert err == "\nFormatted 1 files\n"
    assert (tree / "lib" / "messy.libsonnet").read_text() == TIDY


def test_fmt_reads_standard_input(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(MESSY))
    assert run(capsys, "fmt", "-") == (0, TIDY, "")
    monkeypatch.setattr("sys.stdin", io.StringIO(MESSY))
    assert run(capsys, "fmt", "--test", "-") == (16, TIDY, "")


def test_exclude_replaces_the_default_globs_as_tks_flag(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # By default vendor/ is skipped; an -e of our own replaces that default, comma lists split.
    assert run(capsys, "fmt", "-t", ".")[2].count(".libsonnet") == 1
    code, _, err = run(capsys, "fmt", "-t", "-e", "**/nothing,nothing", ".")
    assert code == 16
    assert "vendor/theirs.libsonnet" in err
    code, _, err = run(capsys, "fmt", "-t", "-e", "lib/*", "-e", "vendor/*", ".")
    assert (code, err) == (0, "All discovered files are already formatted. No changes were made\n")


def test_lint_takes_excludes_and_checks_parallelism(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / "lib" / "broken.libsonnet").write_text("{ a: }\n")
    code, out, _ = run(capsys, "lint", "-n", "8", ".")
    assert code == 1
    assert out == (
        f'{tree.resolve()}/lib/broken.libsonnet:1:6-7 Unexpected: "}}" while parsing terminal\n'
        "\n{ a: }\n\n\n"
    )
    assert run(capsys, "lint", "-e", "lib/broken.libsonnet", "-e", "vendor/**", ".") == (0, "", "")
    code, _, err = run(capsys, "lint", "-n", "0", ".")
    assert code == 1
    assert "parallelism must be greater than 0" in err


@pytest.fixture
def project_in_work_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tempo's layout: a Tanka project two levels down a git work tree, whose vendor/ holds a
    symlink to a sibling of the project (vendor/microservices -> ../../jsonnet/microservices);
    the user runs tk from the project directory."""
    work_tree = tmp_path / "repo"
    shared = work_tree / "operations" / "jsonnet" / "microservices"
    shared.mkdir(parents=True)
    (shared / "tempo.libsonnet").write_text("{ replicas: 3 }\n")
    project = work_tree / "operations" / "jsonnet-compiled"
    (project / "vendor").mkdir(parents=True)
    (project / "jsonnetfile.json").write_text("{}\n")
    (project / "vendor" / "microservices").symlink_to("../../jsonnet/microservices")
    (project / "microservices").mkdir()
    (project / "microservices" / "main.jsonnet").write_text(
        "local tempo = import 'microservices/tempo.libsonnet';\n{ tempo: tempo }\n"
    )
    git(work_tree, "init", "-q")
    monkeypatch.chdir(project)
    return project


def test_lint_from_a_project_directory_follows_vendor_symlinks_inside_the_work_tree(
    project_in_work_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "lint", "microservices/main.jsonnet") == (0, "", "")


def test_lint_still_refuses_a_vendor_symlink_out_of_the_work_tree(
    project_in_work_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "tempo.libsonnet").write_text("{}\n")
    link = project_in_work_tree / "vendor" / "microservices"
    link.unlink()
    link.symlink_to(outside)
    code, out, _ = run(capsys, "lint", "microservices/main.jsonnet")
    assert code == 1
    assert "the path leaves the repository" in out


def test_lint_prints_what_tk_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # tk's own case (pkg/jsonnet/lint_test.go at grafana/tanka 9cbf2517, testdata/lintingError):
    # jsonnet-lint's text with the file's absolute path on stdout, then tk's error, exit 1.
    project = tmp_path / "lintingError"
    project.mkdir()
    (project / "jsonnetfile.json").write_text("{}")
    (project / "main.jsonnet").write_text("local unused = 'test';\n{}\n")
    code, out, err = run(capsys, "lint", str(project))
    assert out == (
        f"{project.resolve()}/main.jsonnet:1:7-22 Unused variable: unused\n"
        "\n"
        "local unused = 'test';\n"
        "\n"
        "\n"
    )
    assert (code, err) == (1, "tanka-bot: error: Linting has failed for at least one file\n")
    (project / "main.jsonnet").write_text("{}\n")
    assert run(capsys, "lint", str(project)) == (0, "", "")


def test_lint_reports_an_imported_file_that_does_not_analyse_at_the_import_as_go_jsonnet(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # go-jsonnet's getImports: the imported file's error text, located at the import.
    (tree / "lib" / "main.jsonnet").write_text("(import 'bad.libsonnet') + {}\n")
    (tree / "lib" / "bad.libsonnet").write_text("{\n  a: nope,\n}\n")
    code, out, _ = run(capsys, "lint", "lib/main.jsonnet")
    assert code == 1
    lib = tree.resolve() / "lib"
    assert out == (
        f"{lib}/main.jsonnet:1:2-24 {lib}/bad.libsonnet:2:6-10 Unknown variable: nope\n"
        "\n(import 'bad.libsonnet') + {}\n\n\n"
    )
