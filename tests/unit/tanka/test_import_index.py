"""The base commit's import index (tools.tanka.imports.index): the environments it selects are the
ones the importers analysis over both trees selects, and it lives and dies with its tree."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.git import git
from tools.tanka import base_tree
from tools.tanka.base_tree import BaseTrees
from tools.tanka.imports import changed as changed_module
from tools.tanka.imports import graph as graph_module
from tools.tanka.imports import index as index_module
from tools.tanka.imports import scan as scan_module
from tools.tanka.imports import scan_store
from tools.tanka.imports.changed import (
    affected_entrypoints,
    base_index,
    changed_files,
    commit_changes,
)
from tools.tanka.imports.graph import ImportScanner
from tools.tanka.imports.index import ImportIndex, build_index, update_index

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_diff" / "repo"
ALL_ENVS = [f"environments/{env}/main.jsonnet" for env in ("dev", "multi", "prod")]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    (root / "lib" / "extra.libsonnet").write_text("{ x: import 'app.libsonnet' }\n")
    (root / "environments" / "dev" / "main.jsonnet").write_text(
        "local optional = import 'optional.libsonnet';\n{ a: optional }\n"
    )
    (root / "lib" / "optional.libsonnet").write_text("{}\n")
    for chart in ("charts/web", "lib/charts/web"):
        (root / chart).mkdir(parents=True)
        (root / chart / "Chart.yaml").write_text("apiVersion: v2\nname: web\nversion: 0.1.0\n")
    (root / "kustomize" / "base").mkdir(parents=True)
    (root / "kustomize" / "base" / "kustomization.yaml").write_text("resources: []\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


def both_ways(repo: Path, trees: BaseTrees) -> tuple[list[str], list[str]]:
    commit = git(repo, "rev-parse", "HEAD").strip()
    tree = trees.tree(repo, commit)
    changes = changed_files(repo, commit)
    exact = affected_entrypoints(repo, tree, changes)
    indexed = affected_entrypoints(repo, tree, changes, base_index(trees, commit, tree))
    return exact, indexed


def append(path: str, text: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        with (repo / path).open("a") as handle:
            handle.write(text)

    return change


def delete(path: str) -> Callable[[Path], None]:
    return lambda repo: (repo / path).unlink()


def create(path: str, text: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)

    return change


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (append("lib/app.libsonnet", "\n"), ["environments/prod/main.jsonnet"]),
        (delete("lib/optional.libsonnet"), ["environments/dev/main.jsonnet"]),
        # A new file that shadows an import of the env (probed before lib/ at the base).
        (create("environments/dev/optional.libsonnet", "{}\n"), ["environments/dev/main.jsonnet"]),
        (create("environments/new/main.jsonnet", "{}\n"), ["environments/new/main.jsonnet"]),
        (append("environments/prod/spec.json", "\n"), ["environments/prod/main.jsonnet"]),
        (append("lib/extra.libsonnet", "\n"), []),
        # Nothing imports a README at the root, in environments/ or in lib/: no render changes.
        (create("README.md", "# docs\n"), []),
        (create("environments/README.md", "# docs\n"), []),
        (create("lib/README.md", "# docs\n"), []),
        # Files helmTemplate and kustomizeBuild read stay inputs, wherever the chart is.
        (create("charts/web/templates/svc.yaml", "kind: Service\n"), ALL_ENVS),
        (create("lib/charts/web/values.yaml", "replicas: 2\n"), ALL_ENVS),
        (create("kustomize/base/deployment.yaml", "kind: Deployment\n"), ALL_ENVS),
        (delete("charts/web/Chart.yaml"), ALL_ENVS),
        # The root marker decides every environment's jpath: tk's rule stays.
        (append("jsonnetfile.json", "\n"), ALL_ENVS),
        (create("tkrc.yaml", ""), ALL_ENVS),
    ],
)
def test_the_index_selects_what_both_analyses_select(
    repo: Path, tmp_path: Path, change: Callable[[Path], None], expected: list[str]
) -> None:
    change(repo)
    exact, indexed = both_ways(repo, BaseTrees(tmp_path / "trees"))
    assert exact == expected
    assert indexed == exact


def test_an_ignored_file_that_changes_resolution_is_resolved_in_the_working_tree(
    repo: Path, tmp_path: Path
) -> None:
    (repo / ".gitignore").write_text("generated.libsonnet\n")
    (repo / "environments/dev/main.jsonnet").write_text(
        "local g = import 'generated.libsonnet';\n{ a: g }\n"
    )
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "generated")
    # Ignored, so no change - but through it dev now reads lib/app.libsonnet.
    (repo / "lib" / "generated.libsonnet").write_text("import 'app.libsonnet'\n")
    with (repo / "lib" / "app.libsonnet").open("a") as handle:
        handle.write("\n")
    exact, indexed = both_ways(repo, BaseTrees(tmp_path / "trees"))
    assert "environments/dev/main.jsonnet" in exact
    assert indexed == exact


def test_the_index_is_stored_beside_its_tree_and_evicted_with_it(
    repo: Path, tmp_path: Path
) -> None:
    trees = BaseTrees(tmp_path / "trees", keep=1)
    first = git(repo, "rev-parse", "HEAD").strip()
    tree = trees.tree(repo, first)
    index = base_index(trees, first, tree)
    stored = trees.sidecar(first, "imports.json")
    assert ImportIndex.from_json(stored.read_text()) == index
    assert base_index(trees, first, tree) is index  # parsed once per process
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    second = git(repo, "rev-parse", "HEAD").strip()
    trees.tree(repo, second)
    assert not stored.exists()
    assert not (tmp_path / "trees" / first).exists()


def test_an_index_of_another_format_is_rebuilt() -> None:
    assert ImportIndex.from_json('{"format": 0, "paths": [], "envs": {}}') is None
    assert ImportIndex.from_json("not json") is None


def test_index_round_trips(repo: Path) -> None:
    index = build_index(repo)
    assert set(index.envs) == {
        "environments/dev/main.jsonnet",
        "environments/multi/main.jsonnet",
        "environments/prod/main.jsonnet",
    }
    assert "lib/app.libsonnet" in index.envs["environments/prod/main.jsonnet"].reads
    assert ImportIndex.from_json(index.to_json()) == index


def tree_files(root: Path) -> dict[str, str]:
    """Every path below `root` with its content, a symlink's target or "dir"."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = f"-> {path.readlink()}"
        elif path.is_dir():
            found[rel] = "dir"
        else:
            found[rel] = f"{path.stat().st_mode:o} {path.read_text()}"
    return found


def move_base(repo: Path, *, links: bool = False) -> None:
    """A new commit: files added, changed, deleted, renamed, a directory emptied, a mode changed;
    with `links`, a directory replaced by a symlink and a new symlink."""
    (repo / "lib" / "app.libsonnet").write_text("{ app: import 'extra.libsonnet' }\n")
    (repo / "lib" / "optional.libsonnet").unlink()
    (repo / "environments" / "dev" / "optional.libsonnet").write_text("{ shadow: true }\n")
    git(repo, "mv", "lib/extra.libsonnet", "lib/renamed.libsonnet")
    (repo / "lib" / "extra.libsonnet").write_text("{ again: 1 }\n")
    shutil.rmtree(repo / "kustomize")
    (repo / "environments" / "new").mkdir()
    (repo / "environments" / "new" / "main.jsonnet").write_text("import 'renamed.libsonnet'\n")
    (repo / "environments" / "multi" / "main.jsonnet").unlink()
    (repo / "charts" / "web" / "Chart.yaml").chmod(0o755)
    if links:
        git(repo, "rm", "-q", "-r", "lib/charts")
        (repo / "lib" / "charts").symlink_to("../charts")
        (repo / "linked").symlink_to("lib")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the base moves")


def test_a_tree_made_from_the_previous_base_is_the_commits_tree(repo: Path, tmp_path: Path) -> None:
    trees = BaseTrees(tmp_path / "trees")
    first = git(repo, "rev-parse", "HEAD").strip()
    old = tree_files(trees.tree(repo, first))
    move_base(repo, links=True)
    second = git(repo, "rev-parse", "HEAD").strip()
    made = trees.tree(repo, second)
    assert trees.linked == 1
    fresh = BaseTrees(tmp_path / "fresh").tree(repo, second)
    assert tree_files(made) == tree_files(fresh)
    assert tree_files(trees.tree(repo, first)) == old  # the previous tree is untouched
    # And back: the symlink becomes a directory again.
    (repo / "lib" / "charts").unlink()
    create("lib/charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.2.0\n")(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a directory again")
    third = git(repo, "rev-parse", "HEAD").strip()
    assert tree_files(trees.tree(repo, third)) == tree_files(
        BaseTrees(tmp_path / "fresh").tree(repo, third)
    )
    assert trees.linked == 2


def test_the_index_derived_from_the_previous_base_equals_one_built_whole(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    create("environments/static/main.jsonnet", "{ kind: 'static' }\n")(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "an environment the move leaves alone")
    trees = BaseTrees(tmp_path / "trees")
    first = git(repo, "rev-parse", "HEAD").strip()
    base_index(trees, first, trees.tree(repo, first), repo)
    move_base(repo)
    second = git(repo, "rev-parse", "HEAD").strip()
    tree = trees.tree(repo, second)
    resolved: list[str] = []
    resolve = index_module._Resolver.__call__

    def counted(self: index_module._Resolver, entrypoint: Path) -> index_module.EnvDeps:
        resolved.append(entrypoint.relative_to(self.top).as_posix())
        return resolve(self, entrypoint)

    with monkeypatch.context() as patched:
        patched.setattr(index_module._Resolver, "__call__", counted)
        patched.setattr(index_module, "build_index", None)  # derived, never built whole
        derived = base_index(trees, second, tree, repo)
    assert "environments/static/main.jsonnet" not in resolved
    assert "environments/new/main.jsonnet" in resolved
    assert derived == build_index(tree)
    assert "environments/new/main.jsonnet" in derived.envs
    assert "environments/multi/main.jsonnet" not in derived.envs


def test_a_root_marker_or_a_symlink_changed_means_a_whole_build(repo: Path, tmp_path: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    index = build_index(BaseTrees(tmp_path / "trees").tree(repo, first))
    assert update_index(index, repo, ["jsonnetfile.json"]) is None
    (repo / "lib" / "link.libsonnet").symlink_to("app.libsonnet")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a link")
    second = git(repo, "rev-parse", "HEAD").strip()
    assert commit_changes(repo, first, second) is None
    assert commit_changes(repo, second, second) == []


def test_no_index_is_derived_for_a_tree_holding_an_ignored_vendor(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / ".gitignore").write_text("vendor/\n")
    (repo / "vendor").mkdir()
    (repo / "vendor" / "dep.libsonnet").write_text("{}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "ignore vendor")
    trees = BaseTrees(tmp_path / "trees")
    first = git(repo, "rev-parse", "HEAD").strip()
    base_index(trees, first, trees.tree(repo, first), repo)
    (repo / "vendor" / "dep.libsonnet").write_text("{ changed: import 'app.libsonnet' }\n")
    git(repo, "commit", "-q", "--allow-empty", "-m", "the base moves; vendor/ changed unseen")
    second = git(repo, "rev-parse", "HEAD").strip()
    tree = trees.tree(repo, second)
    monkeypatch.setattr(changed_module, "update_index", None)  # never derived
    assert base_index(trees, second, tree, repo) == build_index(tree)


def test_files_are_lexed_once_per_content_across_commits_and_processes(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scans kept beside the trees (scan_store.py): a derived index lexes only the files
    whose content it has not seen, and equals an index built whole without the store."""
    trees = BaseTrees(tmp_path / "trees")
    first = git(repo, "rev-parse", "HEAD").strip()
    base_index(trees, first, trees.tree(repo, first), repo)
    assert (trees.cache_dir / scan_store.FILE_NAME).is_file()
    append("lib/app.libsonnet", "// moved\n")(repo)
    git(repo, "commit", "-qam", "a library every importer of it reads")
    second = git(repo, "rev-parse", "HEAD").strip()
    tree = trees.tree(repo, second)
    lexed: list[str] = []
    real = graph_module.scan_imports

    def counted(text: str) -> scan_module.ScanResult:
        lexed.append(text)
        return real(text)

    monkeypatch.setattr(graph_module, "scan_imports", counted)
    derived = base_index(trees, second, tree, repo)  # a new ImportScanner: no memory of `first`
    assert lexed == [(tree / "lib/app.libsonnet").read_text()]
    monkeypatch.undo()
    assert derived == build_index(tree, ImportScanner())


def test_stored_scans_round_trip_and_belong_to_one_lexer(tmp_path: Path) -> None:
    file = tmp_path / "scans.json"
    texts = ["local a = import 'a.libsonnet';\n{ b: importstr \"b.txt\" }\n", "{ a: 'x }\n"]
    store = scan_store.ScanStore(file)
    for text in texts:
        store.put(scan_store.content_key(text.encode()), scan_module.scan_imports(text))
    store.save()
    again = scan_store.ScanStore(file)
    for text in texts:
        assert again.get(scan_store.content_key(text.encode())) == scan_module.scan_imports(text)
    assert scan_module.scan_imports(texts[1]).error is not None  # a lex error is kept too
    other = scan_store.ScanStore(file)
    other._version = "another lexer"
    assert other.get(scan_store.content_key(texts[0].encode())) is None


def test_an_untracked_file_gone_since_git_listed_it_is_no_change(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = git(repo, "rev-parse", "HEAD").strip()
    (repo / "lib" / "new.libsonnet").write_text("{}\n")

    def listing_a_vanished_file(root: Path, *args: str) -> str:
        out = base_tree.git(root, *args)
        if args[:1] == ("ls-files",):  # an atomic write's temporary file, renamed away since
            out += "lib/.app.libsonnet.4f2a.tmp\0"
        return out

    monkeypatch.setattr(changed_module, "git", listing_a_vanished_file)
    assert changed_files(repo, commit).added == ("lib/new.libsonnet",)


def test_a_library_edit_that_keeps_its_imports_re_resolves_no_environment(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resolution follows only imports: a changed file importing the same paths in the same
    order on both sides leaves every environment's resolution as it was; one that imports
    something new has its readers resolved again. Either way the index is the one built whole."""
    trees = BaseTrees(tmp_path / "trees")
    first = git(repo, "rev-parse", "HEAD").strip()
    base_index(trees, first, trees.tree(repo, first), repo)
    resolved: list[str] = []
    resolve = index_module._Resolver.__call__

    def counted(self: index_module._Resolver, entrypoint: Path) -> index_module.EnvDeps:
        resolved.append(entrypoint.relative_to(self.top).as_posix())
        return resolve(self, entrypoint)

    monkeypatch.setattr(index_module._Resolver, "__call__", counted)
    for text, readers in (
        ("// a comment, and no import\n", []),  # prod reads app.libsonnet: nothing to redo
        ("+ { extra:: import 'extra.libsonnet' }\n", ["environments/prod/main.jsonnet"]),
    ):
        append("lib/app.libsonnet", text)(repo)
        git(repo, "commit", "-qam", "the library moves")
        commit = git(repo, "rev-parse", "HEAD").strip()
        tree = trees.tree(repo, commit)
        del resolved[:]
        derived = base_index(trees, commit, tree, repo)
        assert resolved == readers
        assert derived == build_index(tree)
    assert "lib/extra.libsonnet" in derived.envs["environments/prod/main.jsonnet"].reads
