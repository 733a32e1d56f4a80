"""Rendered diffs between a commit and the working tree, on a real git repository.

Environments go through the real engine (evaluation, processing, YAML); the renderer is wrapped
only to count how often it runs.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.git import git
from tools.redaction import REDACTED, SecretMask
from tools.tanka.base_tree import BaseTrees, RevisionError
from tools.tanka.diff import revision
from tools.tanka.diff.render_cache import RenderCache, RenderOptions
from tools.tanka.diff.resources import Change
from tools.tanka.diff.revision import (
    EnvPathError,
    RevisionDiffer,
    render_in_repository,
    rendered_change,
)
from tools.tanka.pipeline.rendered import RenderedEnv

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_diff" / "repo"
SECRET_VALUES = ("UFJPRFBBU1NXT1JE", "prod-token-value", "TkVXUEFTUw==", "new-token")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    return root


class CountingRenderer:
    def __init__(self) -> None:
        self.calls: list[Path] = []

    def __call__(
        self, entrypoint: Path, repository: Path, options: RenderOptions
    ) -> Sequence[RenderedEnv]:
        self.calls.append(entrypoint)
        return render_in_repository(entrypoint, repository, options)


@pytest.fixture
def renderer() -> CountingRenderer:
    return CountingRenderer()


@pytest.fixture
def differ(tmp_path: Path, renderer: CountingRenderer) -> RevisionDiffer:
    return RevisionDiffer(trees=BaseTrees(tmp_path / "trees"), renderer=renderer, workers=2)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_no_change_renders_nothing(
    differ: RevisionDiffer, renderer: CountingRenderer, repo: Path
) -> None:
    result = differ.diff(repo, "HEAD")
    assert result.envs == []
    assert not result.has_changes
    assert renderer.calls == []
    assert result.summary() == "No differences.\n"


def test_reordered_fields_show_no_change(differ: RevisionDiffer, repo: Path) -> None:
    main = repo / "environments/dev/main.jsonnet"
    main.write_text("{ other: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } } }\n")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two")
    main.write_text("{ other: { metadata: { name: 'x' }, kind: 'Namespace', apiVersion: 'v1' } }\n")
    result = differ.diff(repo, "HEAD")
    assert [e.env for e in result.envs] == ["environments/dev"]
    assert not result.has_changes


def test_library_change_affects_only_importing_env(differ: RevisionDiffer, repo: Path) -> None:
    edit(repo / "lib/app.libsonnet", "image: 'nginx:1.25'", "image: 'nginx:1.27'")
    result = differ.diff(repo, "HEAD")
    assert result.changes is not None
    assert result.changes.modified == ("lib/app.libsonnet",)
    [env] = result.envs
    assert env.env == "environments/prod"
    assert [(r.key.name, r.change) for r in env.resources] == [
        ("api", Change.CHANGED),
        ("web", Change.CHANGED),
    ]
    assert "+      - image: nginx:1.27" in env.unified().splitlines()


def test_secret_values_never_in_output(differ: RevisionDiffer, repo: Path) -> None:
    edit(repo / "environments/prod/main.jsonnet", "UFJPRFBBU1NXT1JE", "TkVXUEFTUw==")
    edit(repo / "environments/prod/main.jsonnet", "prod-token-value", "new-token")
    text = differ.diff(repo, "HEAD").text()
    assert "changed  Secret prod/creds (v1)" in text
    assert "+  token: <redacted, value changed>" in text.splitlines()
    for value in SECRET_VALUES:
        assert value not in text


def test_mask_learns_both_sides_cached_base_included(
    differ: RevisionDiffer, renderer: CountingRenderer, repo: Path
) -> None:
    edit(repo / "environments/prod/main.jsonnet", "UFJPRFBBU1NXT1JE", "TkVXUEFTUw==")
    edit(repo / "environments/prod/main.jsonnet", "prod-token-value", "new-token")
    differ.diff(repo, "HEAD")  # the base side is cached from here on
    mask = SecretMask()
    result = rendered_change(repo, "HEAD", mask, differ=differ)
    assert result.has_changes
    assert len(renderer.calls) == 3  # base once, working tree twice
    # PRODPASSWORD / NEWPASS are the decoded `data` values.
    for value in (*SECRET_VALUES, "PRODPASSWORD", "NEWPASS"):
        assert mask.apply(f"<{value}>") == f"<{REDACTED}>"
    assert mask.apply("nginx:1.25") == "nginx:1.25"


def test_env_added_and_removed_with_deleted_files(differ: RevisionDiffer, repo: Path) -> None:
    shutil.rmtree(repo / "environments/dev")
    shutil.copytree(repo / "environments/prod", repo / "environments/staging")
    edit(repo / "environments/staging/spec.json", "environments/prod", "environments/staging")
    result = differ.diff(repo, "HEAD")
    assert result.changes is not None
    assert "environments/dev/main.jsonnet" in result.changes.deleted
    by_env = {e.env: e for e in result.envs}
    assert set(by_env) == {"environments/dev", "environments/staging"}
    assert by_env["environments/dev"].env_change is Change.REMOVED
    assert by_env["environments/staging"].env_change is Change.ADDED
    assert {r.change for r in by_env["environments/staging"].resources} == {Change.ADDED}
    text = result.text()
    for value in SECRET_VALUES:  # the added env holds a Secret
        assert value not in text


def test_deleted_library_file_affects_its_importer(differ: RevisionDiffer, repo: Path) -> None:
    (repo / "lib/app.libsonnet").unlink()
    result = differ.diff(repo, "HEAD")
    [env] = result.envs
    assert env.env == "environments/prod"
    assert env.error is not None
    assert env.error.startswith("working tree:")
    assert str(repo) not in env.error


def test_inline_envs_are_matched_by_name(differ: RevisionDiffer, repo: Path) -> None:
    edit(repo / "environments/multi/main.jsonnet", "hello: name", "hello: 'hi ' + name")
    result = differ.diff(repo, "HEAD")
    labels = [e.env for e in result.envs]
    assert labels == ["environments/multi [multi/blue]", "environments/multi [multi/green]"]
    assert all(e.count(Change.CHANGED) == 1 for e in result.envs)


def test_base_renders_are_cached_by_commit(
    differ: RevisionDiffer, renderer: CountingRenderer, repo: Path
) -> None:
    edit(repo / "environments/dev/main.jsonnet", "'debug'", "'info'")
    first = differ.diff(repo, "HEAD")
    assert len(renderer.calls) == 2  # base and working tree
    edit(repo / "environments/dev/main.jsonnet", "'info'", "'warn'")
    second = differ.diff(repo, "HEAD")
    assert len(renderer.calls) == 3  # only the working tree again
    assert differ.cache.hits == 1
    assert differ.trees.materialised == 1
    assert first.text() != second.text()
    assert "+  log-level: warn" in second.text().splitlines()


def test_cache_is_bounded() -> None:
    cache = RenderCache(max_entries=2)
    for i in range(3):
        cache.put("c", f"e{i}", "err")
    assert len(cache) == 2
    assert cache.get("c", "e0") is None
    assert cache.get("c", "e2") == "err"


def test_named_env_paths(differ: RevisionDiffer, repo: Path) -> None:
    edit(repo / "environments/dev/main.jsonnet", "'debug'", "'info'")
    result = differ.diff(repo, "HEAD", ["environments/dev", str(repo / "environments/prod")])
    assert result.changes is None
    assert [(e.env, e.has_changes) for e in result.envs] == [
        ("environments/dev", True),
        ("environments/prod", False),
    ]


def test_bad_env_path_and_revision(differ: RevisionDiffer, repo: Path) -> None:
    with pytest.raises(EnvPathError, match="no environment at environments/nope"):
        differ.diff(repo, "HEAD", ["environments/nope"])
    with pytest.raises(EnvPathError, match="outside the repository"):
        differ.diff(repo, "HEAD", ["/etc"])
    with pytest.raises(RevisionError, match="unknown revision 'no-such-branch'"):
        differ.diff(repo, "no-such-branch")


def test_base_trees_evict_old_commits(tmp_path: Path, repo: Path) -> None:
    trees = BaseTrees(tmp_path / "trees", keep=1)
    first = trees.tree(repo, git(repo, "rev-parse", "HEAD").strip())
    assert (first / "lib/app.libsonnet").is_file()
    git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "e",
    )
    second = trees.tree(repo, git(repo, "rev-parse", "HEAD").strip())
    assert second.is_dir()
    assert not first.exists()


def test_imports_may_follow_symlinks_within_the_repository(
    differ: RevisionDiffer, tmp_path: Path
) -> None:
    # Tempo's layout: the Tanka project is a subdirectory whose vendor/ links elsewhere in the repo.
    repo = tmp_path / "mono"
    shutil.copytree(FIXTURE, repo / "deploy")
    (repo / "shared").mkdir()
    (repo / "shared" / "app.libsonnet").write_text((FIXTURE / "lib" / "app.libsonnet").read_text())
    (repo / "deploy" / "lib" / "app.libsonnet").unlink()
    (repo / "deploy" / "vendor").mkdir()
    (repo / "deploy" / "vendor" / "app.libsonnet").symlink_to("../../shared/app.libsonnet")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    edit(repo / "shared" / "app.libsonnet", "port: 80 }", "port: 8080 }")
    result = differ.diff(repo, "HEAD")
    assert [(e.env, e.error) for e in result.envs] == [("deploy/environments/prod", None)]
    assert "+  - port: 8080" in result.text().splitlines()


def test_ignored_vendor_is_available_to_the_base_side(differ: RevisionDiffer, repo: Path) -> None:
    # jb-managed repositories often ignore vendor/: the base tree borrows the checkout's copy.
    (repo / "vendor").mkdir()
    (repo / "vendor" / "app.libsonnet").write_text((repo / "lib" / "app.libsonnet").read_text())
    (repo / ".gitignore").write_text("/vendor/\n")
    git(repo, "rm", "-q", "lib/app.libsonnet")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "vendor it")
    edit(repo / "vendor" / "app.libsonnet", "port: 80 }", "port: 81 }")
    result = differ.diff(repo, "HEAD", ["environments/prod"])
    [env] = result.envs
    assert env.error is None
    assert not env.has_changes  # both sides read the same (working tree) vendor/


def test_a_relative_base_tree_directory_stays_outside_the_repository(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    differ = RevisionDiffer(trees=BaseTrees(Path("trees")), workers=1)
    edit(repo / "environments/prod/main.jsonnet", "deployment('web', 3)", "deployment('web', 4)")
    result = differ.diff(repo, "HEAD")
    assert result.has_changes
    assert (tmp_path / "trees").is_dir()
    assert not (repo / "trees").exists()


def test_a_base_prepared_from_a_bare_clone_spares_the_diff_its_base_renders(
    differ: RevisionDiffer, renderer: CountingRenderer, repo: Path, tmp_path: Path
) -> None:
    bare = tmp_path / "cache.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    commit = git(repo, "rev-parse", "HEAD").strip()
    assert differ.prepare_base(bare, commit, render=False) == 3
    assert renderer.calls == []
    differ.prepare_base(bare, commit)
    assert len(renderer.calls) == 3  # every environment's base side, once
    edit(repo / "environments/dev/main.jsonnet", "'debug'", "'info'")
    result = differ.diff(repo, "HEAD")
    assert [e.env for e in result.envs if e.has_changes] == ["environments/dev"]
    assert len(renderer.calls) == 4  # the working tree only
    assert differ.trees.materialised == 1
    # What a check of the same tree takes instead of rendering again.
    assert list(result.worktree) == ["environments/dev/main.jsonnet"]


def test_two_preparations_of_one_commit_render_each_environment_once(
    repo: Path, tmp_path: Path
) -> None:
    calls: list[Path] = []
    again = threading.Event()

    def renderer(
        entrypoint: Path, repository: Path, options: RenderOptions
    ) -> Sequence[RenderedEnv]:
        if entrypoint in calls:
            again.set()
        calls.append(entrypoint)
        again.wait(1.0)  # time for the other preparation to reach the same environment
        return render_in_repository(entrypoint, repository, options)

    differ = RevisionDiffer(trees=BaseTrees(tmp_path / "trees"), renderer=renderer, workers=2)
    commit = git(repo, "rev-parse", "HEAD").strip()
    threads = [threading.Thread(target=differ.prepare_base, args=(repo, commit)) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(calls) == len(set(calls)) == 3


def test_a_new_base_keeps_the_renders_its_changes_cannot_alter(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[str] = []

    def counted(entrypoint: Path, repository: Path, options: RenderOptions) -> object:
        rendered.append(entrypoint.relative_to(repository).as_posix())
        return render_in_repository(entrypoint, repository, options)

    monkeypatch.setattr(revision, "render_in_repository", counted)
    differ = RevisionDiffer(trees=BaseTrees(tmp_path / "trees"), persist=True, workers=1)
    bare = tmp_path / "cache.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    differ.prepare_base(bare, git(bare, "rev-parse", "HEAD").strip())
    assert len(rendered) == 3
    edit(repo / "environments/dev/main.jsonnet", "'debug'", "'info'")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "dev logs less")
    git(repo, "push", "-q", str(bare), "HEAD:main")
    moved = git(bare, "rev-parse", "HEAD").strip()
    differ.prepare_base(bare, moved)
    assert rendered[3:] == ["environments/dev/main.jsonnet"]  # the others were linked
    fresh = RevisionDiffer(trees=BaseTrees(tmp_path / "fresh"), persist=True, workers=1)
    fresh.prepare_base(bare, moved)
    for env in ("environments/dev/main.jsonnet", "environments/prod/main.jsonnet"):
        kept = differ._stored(moved, env, "")
        assert kept is not None
        assert kept == fresh._stored(moved, env, "")


def test_a_diff_after_the_base_moved_links_the_renders_the_move_cannot_alter(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tanka-bot tk diff` (persist, no bot): the first diff against a new base commit takes
    the previous base's stored renders of the environments the commits between cannot affect,
    and each is byte for byte the render a fresh cache makes of the new commit."""
    rendered: list[str] = []

    def counted(entrypoint: Path, repository: Path, options: RenderOptions) -> object:
        rendered.append(entrypoint.relative_to(repository).as_posix())
        return render_in_repository(entrypoint, repository, options)

    monkeypatch.setattr(revision, "render_in_repository", counted)
    trees = BaseTrees(tmp_path / "trees")
    every = ["environments/dev/main.jsonnet", "environments/multi/main.jsonnet",
             "environments/prod/main.jsonnet"]  # fmt: skip
    edit(repo / "lib/app.libsonnet", "nginx:1.25", "nginx:1.27")  # prod imports it
    first = RevisionDiffer(trees=trees, persist=True, workers=1)
    first.diff(repo, "HEAD")  # the base's import index and prod's render
    first.diff(repo, "HEAD", every)  # and the others'
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q"]
    prod = "environments/prod/main.jsonnet"
    for moved_file, unaffected, renders in (
        # a file no environment reads: every base render holds, only the working tree renders
        ("README.md", every, {prod: 1}),
        # prod's own file: its base side renders again, the others hold
        (prod, [e for e in every if e != prod], {prod: 2}),
    ):
        path = repo / moved_file
        path.write_text(path.read_text() + "// moved\n" if path.exists() else "moved\n")
        git(repo, "add", moved_file)
        git(repo, *commit, "-m", f"move {moved_file}", "--", moved_file)  # keeps the lib edit
        moved = git(repo, "rev-parse", "HEAD").strip()
        del rendered[:]
        result = RevisionDiffer(trees=trees, persist=True, workers=1).diff(repo, "HEAD")
        assert {e: rendered.count(e) for e in rendered} == renders
        fresh_trees = BaseTrees(tmp_path / f"fresh-{moved[:8]}")
        fresh = RevisionDiffer(trees=fresh_trees, persist=True, workers=1)
        expected = fresh.diff(repo, "HEAD")
        assert result.text() == expected.text()
        fresh.diff(repo, "HEAD", every)  # every base render, for the comparison below
        for env in every:
            kept = trees.cache_dir / differ_file(trees, moved, env)
            made = fresh_trees.cache_dir / differ_file(fresh_trees, moved, env)
            assert kept.read_bytes() == made.read_bytes(), env
            linked = kept.stat().st_nlink > 1
            assert linked == (env in unaffected), env


def differ_file(trees: BaseTrees, commit: str, env: str) -> str:
    """The name of the stored base render of `env` at `commit` (the default options)."""
    return RevisionDiffer(trees=trees, persist=True)._stored_path(commit, env, "").name


def test_a_base_move_touching_no_jsonnet_builds_no_tree_until_a_base_side_must_render(
    repo: Path, tmp_path: Path
) -> None:
    """`tanka-bot tk diff` right after the base moved by Go code and docs: every stored base
    render carries over and the new commit gets no tree of its own. A later diff that must
    render an environment's base side builds it then - the commit's files, kept renders and
    all - and every diff reads as one made from scratch."""

    def tk_diff(trees: BaseTrees) -> tuple[str, int]:  # as `tanka-bot tk diff` keeps things
        differ = RevisionDiffer(trees=trees, persist=True, keep_worktree=True, workers=1)
        return differ.diff(repo, "HEAD").text(), differ.evaluated

    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q"]
    for name in ("README.md", "cmd/main.go"):
        (repo / name).parent.mkdir(exist_ok=True)
        (repo / name).write_text("start\n")
    git(repo, "add", "-A")
    git(repo, *commit, "-m", "docs and code")
    trees = BaseTrees(tmp_path / "trees")
    prod = "environments/prod/main.jsonnet"
    edit(repo / "lib/app.libsonnet", "nginx:1.25", "nginx:1.27")  # prod imports it
    assert tk_diff(trees)[1] == 2  # prod, both sides
    for name in ("README.md", "cmd/main.go"):
        (repo / name).write_text("moved\n")
    git(repo, *commit, "-m", "the base moves: docs and code", "README.md", "cmd/main.go")
    moved = git(repo, "rev-parse", "HEAD").strip()
    text, evaluated = tk_diff(trees)
    assert evaluated == 0  # prod's base render carried over, its working tree's kept
    assert not (trees.cache_dir / moved).exists()
    assert text == tk_diff(BaseTrees(tmp_path / "fresh"))[0]
    # dev's base side was never rendered: now it must be, from the commit's own tree.
    edit(repo / "environments/dev/main.jsonnet", "'debug'", "'info'")
    text, evaluated = tk_diff(trees)
    assert evaluated == 2  # dev, both sides
    assert (trees.cache_dir / moved / "README.md").read_text() == "moved\n"
    assert RevisionDiffer(trees=trees, persist=True)._stored(moved, prod, "") is not None
    assert text == tk_diff(BaseTrees(tmp_path / "fresh-again"))[0]


def test_a_commit_viewed_through_an_evicted_tree_goes_with_it(tmp_path: Path, repo: Path) -> None:
    trees = BaseTrees(tmp_path / "trees", keep=1)
    first = git(repo, "rev-parse", "HEAD").strip()
    viewed = "f" * 40
    trees.add_view(viewed, trees.tree(repo, first))
    trees.sidecar(viewed, "imports.json").write_text("{}")
    assert trees.existing(viewed) == trees.cache_dir / first
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
        "-m", "next")  # fmt: skip
    trees.tree(repo, git(repo, "rev-parse", "HEAD").strip())  # evicts `first`
    assert trees.existing(viewed) is None
    assert not list(trees.cache_dir.glob(f"{viewed}.*"))


def test_a_base_move_editing_a_library_builds_its_tree_only_for_a_render_reading_it(
    repo: Path, tmp_path: Path
) -> None:
    """The base moves by an edit of a library's code (not its imports) that prod reads: a diff
    of dev alone takes dev's carried render and builds no tree; a diff of prod must render
    prod's base side, from the commit's own tree, which holds the edited library."""

    def tk_diff(trees: BaseTrees, *envs: str) -> tuple[str, int]:
        differ = RevisionDiffer(trees=trees, persist=True, keep_worktree=True, workers=1)
        return differ.diff(repo, "HEAD", envs).text(), differ.evaluated

    trees = BaseTrees(tmp_path / "trees")
    differ = RevisionDiffer(trees=trees, persist=True)
    differ.prepare_base(repo, git(repo, "rev-parse", "HEAD").strip())  # its index, every render
    edit(repo / "lib/app.libsonnet", "nginx:1.25", "nginx:1.27")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "a new image")
    moved = git(repo, "rev-parse", "HEAD").strip()
    edit(repo / "environments/dev/main.jsonnet", "'debug'", "'info'")
    text, evaluated = tk_diff(trees)  # dev, the one the working tree's change affects
    assert evaluated == 1  # dev's working tree; its base side carried over
    assert not (trees.cache_dir / moved).exists()
    assert text == tk_diff(BaseTrees(tmp_path / "fresh"))[0]
    edit(repo / "environments/prod/main.jsonnet", "'web', 3", "'web', 4")
    text, evaluated = tk_diff(trees)
    assert evaluated == 2  # prod, both sides (dev's working tree kept)
    assert "nginx:1.27" in (trees.cache_dir / moved / "lib/app.libsonnet").read_text()
    assert text == tk_diff(BaseTrees(tmp_path / "fresh-again"))[0]


def test_a_render_that_read_the_moved_library_through_a_symlink_renders_again(
    repo: Path, tmp_path: Path
) -> None:
    """prod reads lib/app.libsonnet through environments/prod/app.libsonnet, a symlink to it
    (its own directory comes first on its jpath): when the base moves by an edit of the
    library, prod's base render is made again, not carried over by its read set looked up in
    the previous commit's files."""
    (repo / "environments/prod/app.libsonnet").symlink_to("../../lib/app.libsonnet")
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q"]
    git(repo, "add", "-A")
    git(repo, *commit, "-m", "vendored through a link")
    trees = BaseTrees(tmp_path / "trees")
    RevisionDiffer(trees=trees, persist=True).prepare_base(
        repo, git(repo, "rev-parse", "HEAD").strip()
    )
    edit(repo / "lib/app.libsonnet", "nginx:1.25", "nginx:1.27")
    git(repo, *commit, "-am", "a new image")
    edit(repo / "environments/prod/main.jsonnet", "'web', 3", "'web', 4")
    differ = RevisionDiffer(trees=trees, persist=True, keep_worktree=True, workers=1)
    fresh = RevisionDiffer(trees=BaseTrees(tmp_path / "fresh"), persist=True, workers=1)
    assert differ.diff(repo, "HEAD").text() == fresh.diff(repo, "HEAD").text()
    assert differ.evaluated == 2  # prod, both sides
