"""`tanka-bot tk tool importers-count` against tk's own cases.

The cases and expected texts are grafana/tanka's `pkg/jsonnet/find_importers_test.go`
(`TestCountImporters`) at commit 9cbf25174556cdd5c1471ee2bd15463a5576fef2, on the rebuilt
`testdata/findImporters` tree of test_importers_tk_cases.py; as there, the working directory is
the parent of `testdata` and `--root` is `testdata/findImporters`. tk's command prints the
counted text with Println, hence the final blank line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from tests.unit.tanka.test_importers_tk_cases import E, T, workdir

__all__ = ["workdir"]  # the fixture, shared

CASES = [
    ("project with no imports", E + "no-imports", True, ""),
    (
        "project with imports",
        E + "imports-locals-and-vendored",
        True,
        f"{E}imports-locals-and-vendored/local-file1.libsonnet: 1\n"
        f"{E}imports-locals-and-vendored/local-file2.libsonnet: 1\n",
    ),
    ("lib non-recursive", T + "lib/lib1", False, f"{T}lib/lib1/main.libsonnet: 1\n"),
    (
        "lib recursive",
        T + "lib/lib1",
        True,
        f"{T}lib/lib1/main.libsonnet: 1\n{T}lib/lib1/subfolder/test.libsonnet: 0\n",
    ),
]


def tk(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tk", "tool", "importers-count", "--root", T, *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("directory", "recursive", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_tk_count_importers_case(
    workdir: Path,
    capsys: pytest.CaptureFixture[str],
    directory: str,
    recursive: bool,
    expected: str,
) -> None:
    flags = ["--recursive"] if recursive else []
    assert tk(capsys, *flags, directory) == (0, expected + "\n", "")


def test_most_imported_first_then_by_path(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # tk's sort (CountImporters): count descending, path ascending on ties. The counts of 3 are
    # the three importers tk's own "vendored file" and "text file" cases expect.
    code, out, _ = tk(
        capsys, "--recursive", "--filename-regex", r"\.(libsonnet|txt)$", T + "vendor"
    )
    assert code == 0
    assert out == (
        f"{T}vendor/vendored/main.libsonnet: 3\n"
        f"{T}vendor/vendored/text-file.txt: 3\n"
        f"{T}vendor/unimported-vendor/main.libsonnet: 0\n"
        f"{T}vendor/vendor-override-in-env/main.libsonnet: 0\n\n"
    )


def test_the_pattern_is_gos_regexp(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # POSIX classes and \pL are Go's (RE2's) syntax, which Python's re rejects.
    posix = tk(capsys, "--recursive", "--filename-regex", r"[[:alpha:]]\.txt$", T + "vendor")
    letters = tk(capsys, "--recursive", "--filename-regex", r"\pL\.txt$", T + "vendor")
    assert posix == letters == (0, f"{T}vendor/vendored/text-file.txt: 3\n\n", "")


def test_bad_regex_and_missing_directory_are_clear(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = tk(capsys, "--filename-regex", "(", T + "lib")
    assert code == 1
    # Go's words for it: the pattern is compiled by RE2, as tk's is.
    assert "compiling filename regex: error parsing regexp: missing closing ): `(`" in err
    code, _, err = tk(capsys, T + "nope")
    assert code == 1
    assert f"walking directory: {T}nope: no such file or directory" in err
