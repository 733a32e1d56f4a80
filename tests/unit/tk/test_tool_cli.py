"""`tanka-bot tk tool jpath|imports|importers` on tk's own cases.

Expected values from grafana/tanka at commit 9cbf25174556cdd5c1471ee2bd15463a5576fef2:
`pkg/jsonnet/imports_test.go` (TestTransitiveImports on `testdata/importTree`, rebuilt below with
the same paths and import statements), `pkg/jsonnet/jpath/jpath.go` (Resolve: root/vendor,
base/vendor, root/lib, base) and `cmd/tk/tool.go` (output forms: jpath joined with ':' and no
newline, imports as compact JSON, --check's two sentences and exit status 16).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.cli import main
from tests.unit.tanka.test_importers_tk_cases import E, T, workdir

__all__ = ["workdir"]  # the fixture, shared

IMPORT_TREE = {
    "jsonnetfile.json": "{}",
    "README.md": "# Importing testdata\n",
    "main.jsonnet": "local trees = import 'trees.jsonnet';\n[trees.apple, trees.cherry, "
    "trees.peach]\n",
    "trees.jsonnet": "{\n  apple: import 'trees/apple.jsonnet',\n  peach: import "
    "'trees/peach.jsonnet',\n  cherry: import 'trees/cherry.jsonnet',\n}\n",
    "trees/apple.jsonnet": "local t = import 'generic.libsonnet';\nt.new('apple', 'red')\n",
    "trees/cherry.jsonnet": "local t = import 'generic.libsonnet';\nt.new('cherry', 'red')\n",
    "trees/peach.jsonnet": "local t = import 'generic.libsonnet';\nt.new('peach', 'orange')\n",
    "trees/generic.libsonnet": "{ new(breed, color):: { breed: breed, color: color } }\n",
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "pkg" / "jsonnet" / "testdata" / "importTree"
    for rel, text in IMPORT_TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    monkeypatch.chdir(tmp_path / "pkg" / "jsonnet")
    return root


def tk(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tk", "tool", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_transitive_imports(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = [
        "main.jsonnet",
        "trees.jsonnet",
        "trees/apple.jsonnet",
        "trees/cherry.jsonnet",
        "trees/generic.libsonnet",
        "trees/peach.jsonnet",
    ]
    out = "[" + ",".join(f'"{p}"' for p in expected) + "]\n"
    assert tk(capsys, "imports", "testdata/importTree") == (0, out, "")


def test_imports_lists_importstr_not_importbin_and_resolves_symlinks(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / "data").mkdir()
    (tree / "data" / "a&b.txt").write_text("x")
    (tree / "data" / "blob").write_text("x")
    (tree / "link.txt").symlink_to("data/a&b.txt")
    (tree / "main.jsonnet").write_text(
        "{ s: importstr 'link.txt', b: importbin 'data/blob', t: import 'tk' }\n"
    )
    # The symlink is listed as its target; `&` escaped as Go's encoder does.
    assert tk(capsys, "imports", "testdata/importTree") == (
        0,
        '["data/a\\u0026b.txt","main.jsonnet"]\n',
        "",
    )


def test_imports_fails_on_an_import_that_does_not_resolve(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / "trees.jsonnet").write_text("import 'missing.libsonnet'\n")
    code, out, err = tk(capsys, "imports", "testdata/importTree")
    assert (code, out) == (1, "")
    assert "resolving imports: importing 'missing.libsonnet' from '" in err
    assert "trees.jsonnet" in err


def test_imports_check_against_a_commit(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tree,
                       check=True, capture_output=True)  # fmt: skip

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "one")
    (tree / "README.md").write_text("changed\n")
    git("commit", "-q", "-am", "readme")
    code, out, _ = tk(capsys, "imports", "testdata/importTree", "--check", "HEAD")
    assert (code, out) == (
        0,
        "Rebuild not required, because no imported files have been changed in `HEAD`.\n",
    )
    (tree / "trees" / "peach.jsonnet").write_text("{}\n")
    git("commit", "-q", "-am", "peach")
    code, out, _ = tk(capsys, "imports", "testdata/importTree", "-c", "HEAD")
    assert (code, out) == (
        16,
        "Rebuild required. File `testdata/importTree` imports `trees/peach.jsonnet`, which has "
        "been changed in `HEAD`.\n",
    )
    code, _, err = tk(capsys, "imports", "testdata/importTree", "-c", "no-such-commit")
    assert code == 1
    assert "invoking git" in err


def test_jpath(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(tree)
    jpath = [f"{root}/vendor", f"{root}/vendor", f"{root}/lib", root]
    assert tk(capsys, "jpath", "testdata/importTree") == (0, ":".join(jpath), "")
    code, out, err = tk(capsys, "jpath", "-d", "testdata/importTree/trees.jsonnet")
    assert (code, out) == (0, ":".join(jpath))
    assert err == (
        f"main: {root}/trees.jsonnet\nrootDir: {root}\nbaseDir: {root}\n"
        f"jpath: [{' '.join(jpath)}]\n"
    )


def test_jpath_of_an_environment_below_the_root(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = workdir / T.rstrip("/"), workdir / E / "no-imports"
    expected = f"{root}/vendor:{base}/vendor:{root}/lib:{base}"
    assert tk(capsys, "jpath", E + "no-imports") == (0, expected, "")
    code, _, err = tk(capsys, "jpath", "/")
    assert code == 1
    assert "resolving JPATH: unable to identify the project root." in err


def test_tool_importers_is_tanka_bot_tk_importers(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--root", T, E + "relative-imported/main.jsonnet"]
    assert main(["tk", "importers", *args]) == 0
    direct = capsys.readouterr().out
    assert tk(capsys, "importers", *args) == (0, direct, "")
    assert direct.count("main.jsonnet") == 2
