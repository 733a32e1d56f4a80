"""`tanka-bot tk fmt` and `tk lint` with tk's flags: -t, --stdout, -v, -e, `-` (stdin), -n."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.cli import main

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
    assert out.startswith("lib/broken.libsonnet:1:6: error:")
    assert run(capsys, "lint", "-e", "lib/broken.libsonnet", "-e", "vendor/**", ".") == (0, "", "")
    code, _, err = run(capsys, "lint", "-n", "0", ".")
    assert code == 1
    assert "parallelism must be greater than 0" in err
