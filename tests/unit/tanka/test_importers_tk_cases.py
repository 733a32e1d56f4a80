"""`tanka-bot tk importers` against tk's own importers tests.

The cases and their expected importers are grafana/tanka's `pkg/jsonnet/find_importers_test.go`
(`findImportersTestCases`, `TestFindImportersForFiles`) at commit
9cbf25174556cdd5c1471ee2bd15463a5576fef2. The tree below rebuilds that test's fixture
(`pkg/jsonnet/testdata/findImporters`): the same paths, the same import statements and the same
symlink, with minimal content of our own. As in the Go test, the working directory is the parent
of `testdata`, `--root` is `testdata/findImporters` and files are given relative to the working
directory (deleted ones also relative to the root).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main

TREE: dict[str, str] = {
    "tkrc.yaml": "# root\n",
    "environments/chain-env1/config.jsonnet": "{ db: 'env1' }\n",
    "environments/chain-env1/main.jsonnet": "{ name: 'env1' }\n",
    "environments/chain-env2/main.jsonnet": "local lib1 = import 'chain-lib1/main.libsonnet';\n"
    "{ inherited: lib1.processedConfig }\n",
    "environments/chain-env3/main.jsonnet": "local lib3 = import 'chain-lib3/main.libsonnet';\n"
    "{ final: lib3.importedFromEnv2 }\n",
    "environments/import-other-main-file/env1/main.jsonnet": "{ otherMain: import "
    "'../env2/main.jsonnet' }\n",
    "environments/import-other-main-file/env2/file.libsonnet": "{}\n",
    "environments/import-other-main-file/env2/main.jsonnet": "{ myfile: import "
    "'file.libsonnet' }\n",
    "environments/imports-lib-and-vendored-through-chain/chain1.libsonnet": "{ chain: import "
    "'chain2.libsonnet' }\n",
    "environments/imports-lib-and-vendored-through-chain/chain2.libsonnet": "{ chain: import "
    "'lib1/main.libsonnet' }\n",
    "environments/imports-lib-and-vendored-through-chain/main.jsonnet": "{ chain: import "
    "'chain1.libsonnet' }\n",
    "environments/imports-locals-and-vendored/local-file1.libsonnet": "{}\n",
    "environments/imports-locals-and-vendored/local-file2.libsonnet": "{}\n",
    "environments/imports-locals-and-vendored/main.jsonnet": "{\n"
    "  attr1: import 'local-file1.libsonnet',\n"
    "  attr2: import '././../imports-locals-and-vendored/./local-file2.libsonnet',\n"
    "  vendored1: import 'vendored/main.libsonnet',\n}\n",
    "environments/imports-symlinked-vendor/main.jsonnet": "{ symlinked: import "
    "'vendor-symlinked/main.libsonnet' }\n",
    "environments/lib-import-relative-to-env/README.md": "# relative to the env\n",
    "environments/lib-import-relative-to-env/file-to-import.libsonnet": "{ attribute: 'x' }\n",
    "environments/lib-import-relative-to-env/folder1/folder2/main.jsonnet": "local lib = import "
    "'imports-relative-to-env/main.libsonnet';\n{ attribute: lib.attribute }\n",
    "environments/lib-imports-environment/config.jsonnet": "{ shared: 'x' }\n",
    "environments/lib-imports-environment/main.jsonnet": "{ environment: 'test' }\n",
    "environments/no-imports/main.jsonnet": "{}\n",
    "environments/relative-import/main.jsonnet": "{\n"
    "  first: import '../relative-imported/main.jsonnet',\n"
    "  second: import '../../relative-imported2/main.jsonnet',\n"
    "  externalFile: importstr '../../other-files/test.txt',\n"
    "  externalFile2: importstr '../../../other-files/test2.txt',\n}\n",
    "environments/relative-imported/main.jsonnet": "{}\n",
    "environments/relative-imported2/main.jsonnet": "{}\n",
    "environments/uses-lib-that-imports-env/main.jsonnet": "local lib = import "
    "'lib-imports-environment/main.libsonnet';\n{ result: lib.environment_config }\n",
    "environments/using-deleted-stuff/main.jsonnet": "{ myimport: import "
    "'my-import-dir/main.libsonnet' }\n",
    "environments/vendor-override-in-env/main.jsonnet": "{ imported: import "
    "'vendor-override-in-env/main.libsonnet' }\n",
    "environments/vendor-override-in-env/vendor/vendor-override-in-env/main.libsonnet": "{}\n",
    "lib/chain-lib1/main.libsonnet": "{ processedConfig: import "
    "'../../environments/chain-env1/config.jsonnet' }\n",
    "lib/chain-lib3/main.libsonnet": "{ importedFromEnv2: import "
    "'../../environments/chain-env2/main.jsonnet' }\n",
    "lib/imports-relative-to-env/main.libsonnet": "import '../../file-to-import.libsonnet'\n",
    "lib/lib-imports-environment/main.libsonnet": "{ environment_config: import "
    "'../../environments/lib-imports-environment/config.jsonnet' }\n",
    "lib/lib1/main.libsonnet": "{ vendored: import 'vendored/main.libsonnet' }\n",
    "lib/lib1/subfolder/test.libsonnet": "{}\n",
    "lib/lib2/main.libsonnet": "{}\n",
    "lib/unimported-lib/main.libsonnet": "{}\n",
    "other-files/test.txt": "test1",
    "other-files/test2.txt": "test2",
    "vendor/unimported-vendor/main.libsonnet": "{}\n",
    "vendor/vendor-override-in-env/main.libsonnet": "{}\n",
    "vendor/vendored/main.libsonnet": "{ text: importstr 'text-file.txt' }\n",
    "vendor/vendored/text-file.txt": "I am text",
}
SYMLINKS = {"vendor/vendor-symlinked": "vendored"}

T = "testdata/findImporters/"
E = T + "environments/"
# (case name in find_importers_test.go, files, expected importers relative to the working dir)
CASES: list[tuple[str, list[str], list[str]]] = [
    ("project with no imports", [E + "no-imports/main.jsonnet"], [E + "no-imports/main.jsonnet"]),
    (
        "local import",
        [E + "imports-locals-and-vendored/local-file1.libsonnet"],
        [E + "imports-locals-and-vendored/main.jsonnet"],
    ),
    (
        "local import with relative path",
        [E + "imports-locals-and-vendored/local-file2.libsonnet"],
        [E + "imports-locals-and-vendored/main.jsonnet"],
    ),
    (
        "lib imported through chain",
        [T + "lib/lib1/main.libsonnet"],
        [E + "imports-lib-and-vendored-through-chain/main.jsonnet"],
    ),
    *(
        (
            name,
            [T + file],
            [
                E + "imports-lib-and-vendored-through-chain/main.jsonnet",
                E + "imports-locals-and-vendored/main.jsonnet",
                E + "imports-symlinked-vendor/main.jsonnet",
            ],
        )
        for name, file in [
            ("vendored lib imported through chain + directly", "vendor/vendored/main.libsonnet"),
            ("vendored lib found through symlink", "vendor/vendor-symlinked/main.libsonnet"),
            ("text file", "vendor/vendored/text-file.txt"),
        ]
    ),
    (
        "relative imported environment",
        [E + "relative-imported/main.jsonnet"],
        [E + "relative-import/main.jsonnet", E + "relative-imported/main.jsonnet"],
    ),
    (
        "relative imported environment with doubled '..'",
        [E + "relative-imported2/main.jsonnet"],
        [E + "relative-import/main.jsonnet", E + "relative-imported2/main.jsonnet"],
    ),
    (
        "relative imported text file",
        [T + "other-files/test.txt"],
        [E + "relative-import/main.jsonnet"],
    ),
    (
        "relative imported text file with doubled '..'",
        [T + "other-files/test2.txt"],
        [E + "relative-import/main.jsonnet"],
    ),
    (
        "vendor override in env: override vendor used",
        [E + "vendor-override-in-env/vendor/vendor-override-in-env/main.libsonnet"],
        [E + "vendor-override-in-env/main.jsonnet"],
    ),
    (
        "vendor override in env: global vendor unused",
        [T + "vendor/vendor-override-in-env/main.libsonnet"],
        [],
    ),
    (
        "imported file in lib relative to env",
        [E + "lib-import-relative-to-env/file-to-import.libsonnet"],
        [E + "lib-import-relative-to-env/folder1/folder2/main.jsonnet"],
    ),
    ("unused deleted file", ["deleted:" + T + "vendor/deleted-vendor/main.libsonnet"], []),
    *(
        (name, ["deleted:" + file], [E + "using-deleted-stuff/main.jsonnet"])
        for name, file in [
            (
                "deleted local path that is still potentially imported",
                E + "using-deleted-stuff/my-import-dir/main.libsonnet",
            ),
            (
                "deleted lib that is still potentially imported",
                T + "lib/my-import-dir/main.libsonnet",
            ),
            (
                "deleted vendor that is still potentially imported",
                T + "vendor/my-import-dir/main.libsonnet",
            ),
            (
                "deleted lib that is still potentially imported, relative path from root",
                "lib/my-import-dir/main.libsonnet",
            ),
        ]
    ),
    (
        "deleted dir in environment",
        ["deleted:" + E + "no-imports/deleted-dir/deleted-file.libsonnet"],
        [E + "no-imports/main.jsonnet"],
    ),
    (
        "imports through a main file are followed",
        [E + "import-other-main-file/env2/file.libsonnet"],
        [
            E + "import-other-main-file/env1/main.jsonnet",
            E + "import-other-main-file/env2/main.jsonnet",
        ],
    ),
    (
        "lib file imports environment file",
        [E + "lib-imports-environment/config.jsonnet"],
        [E + "lib-imports-environment/main.jsonnet", E + "uses-lib-that-imports-env/main.jsonnet"],
    ),
    (
        "complex transitive chain: env1 -> lib1 -> env2 -> lib3 -> env3",
        [E + "chain-env1/config.jsonnet"],
        [
            E + "chain-env1/main.jsonnet",
            E + "chain-env2/main.jsonnet",
            E + "chain-env3/main.jsonnet",
        ],
    ),
]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "pkg" / T
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel, target in SYMLINKS.items():
        (root / rel).symlink_to(target)
    monkeypatch.chdir(tmp_path / "pkg")
    return (tmp_path / "pkg").resolve()


@pytest.mark.parametrize(("files", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_tk_find_importers_case(
    workdir: Path, capsys: pytest.CaptureFixture[str], files: list[str], expected: list[str]
) -> None:
    assert main(["tk", "importers", "--root", T, *files]) == 0
    out = capsys.readouterr().out
    assert out == "\n".join(str(workdir / e) for e in expected) + "\n"


def test_tk_find_importers_case_invalid_file(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # tk's importers command checks each file before the analysis: `file %q does not exist`.
    missing = T + "does-not-exist.jsonnet"
    assert main(["tk", "importers", "--root", T, missing]) == 1
    assert f'file "{missing}" does not exist' in capsys.readouterr().err


def test_the_root_defaults_to_the_working_directory(
    workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workdir / T)
    assert main(["tk", "importers", "deleted:lib/my-import-dir/main.libsonnet"]) == 0
    assert capsys.readouterr().out == f"{workdir}/{E}using-deleted-stuff/main.jsonnet\n"
