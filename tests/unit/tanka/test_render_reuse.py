"""Renders reused by their read sets (tools/tanka/diff/reuse.py), on a real git repository and
the real engine: `RevisionDiffer.evaluated` counts the entrypoints actually evaluated.

Each "renders again" test changes something the environment's render depends on in a way the
read set must see; reusing there would show no difference where there is one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.git import git
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.resources import Change
from tools.tanka.diff.revision import RevisionDiffer
from tools.tanka.natives import helm_lib

FIXTURES = Path(__file__).parents[2] / "fixtures"
PROD = "environments/prod/main.jsonnet"
COMMIT = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q"]
# Imported by prod's main.jsonnet but never evaluated: the import index counts it, the
# evaluation never reads it.
UNUSED = "local unused = import 'unused.libsonnet';\n"


def committed(root: Path) -> Path:
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, *COMMIT, "-m", "base")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "tanka_diff" / "repo", root)
    main = root / PROD
    main.write_text(UNUSED + main.read_text())
    (root / "lib" / "unused.libsonnet").write_text("{ a: 1 }\n")
    return committed(root)


def differ(tmp_path: Path) -> RevisionDiffer:
    """A `tanka-bot tk diff` process's differ: renders and read sets kept on disk."""
    return RevisionDiffer(trees=BaseTrees(tmp_path / "trees"), persist=True, keep_worktree=True,
                          workers=1)  # fmt: skip


def prepared(tmp_path: Path, repo: Path) -> None:
    """The base's renders, made before any diff (as the bot's maintenance does)."""
    differ(tmp_path).prepare_base(repo, git(repo, "rev-parse", "HEAD").strip())


def test_the_working_tree_takes_the_base_render_when_it_reads_the_same_files(
    tmp_path: Path, repo: Path
) -> None:
    prepared(tmp_path, repo)
    (repo / "lib" / "unused.libsonnet").write_text("{ a: 2 }\n")
    first = differ(tmp_path)
    result = first.diff(repo, "HEAD")
    assert [e.env for e in result.envs] == ["environments/prod"]  # the index's choice
    assert not result.has_changes
    assert (first.evaluated, first.reused) == (0, 1)


def test_the_working_tree_takes_its_previous_render_in_the_next_process(
    tmp_path: Path, repo: Path
) -> None:
    (repo / "lib" / "app.libsonnet").write_text(
        (repo / "lib" / "app.libsonnet").read_text().replace("nginx:1.25", "nginx:1.27")
    )
    first = differ(tmp_path)
    expected = first.diff(repo, "HEAD").text()
    assert first.evaluated == 2  # both sides of prod
    again = differ(tmp_path)
    assert again.diff(repo, "HEAD").text() == expected
    assert (again.evaluated, again.reused) == (0, 1)


def test_a_changed_file_the_render_read_renders_again(tmp_path: Path, repo: Path) -> None:
    prepared(tmp_path, repo)
    app = repo / "lib" / "app.libsonnet"
    app.write_text(app.read_text().replace("nginx:1.25", "nginx:1.27"))
    second = differ(tmp_path)
    [env] = second.diff(repo, "HEAD").envs
    assert [(r.key.name, r.change) for r in env.resources] == [
        ("api", Change.CHANGED),
        ("web", Change.CHANGED),
    ]
    assert (second.evaluated, second.reused) == (1, 0)


def test_a_file_created_where_an_import_lookup_missed_renders_again(
    tmp_path: Path, repo: Path
) -> None:
    # prod's `import 'app.libsonnet'` looks in its own directory before lib/: the miss is
    # part of its read set, and a file there now shadows the library.
    prepared(tmp_path, repo)
    shadow = repo / "environments" / "prod" / "app.libsonnet"
    shadow.write_text(
        (repo / "lib" / "app.libsonnet").read_text().replace("nginx:1.25", "nginx:1.99")
    )
    second = differ(tmp_path)
    [env] = second.diff(repo, "HEAD").envs
    assert "+      - image: nginx:1.99" in env.unified().splitlines()
    assert (second.evaluated, second.reused) == (1, 0)


@pytest.mark.skipif(not helm_lib.available(), reason="Helm's library is not loadable")
def test_a_changed_chart_file_renders_again(tmp_path: Path) -> None:
    # helmTemplate reads the chart's directory itself, out of the import callback's sight: a
    # render that called it has no read set, and is never reused.
    root = tmp_path / "helm"
    shutil.copytree(FIXTURES / "tanka_helm", root)
    repo = committed(root)
    env = "environments/default/main.jsonnet"
    base = git(repo, "rev-parse", "HEAD").strip()
    first = differ(tmp_path)
    first.prepare_base(repo, base)
    first.diff(repo, "HEAD", [env])  # the working tree's own render, unchanged
    values = repo / "charts" / "demo" / "values.yaml"
    assert "replicas: 1" in values.read_text()
    (repo / "environments" / "default" / "main.jsonnet").write_text(
        (repo / env).read_text().replace("replicas: 3, ", "")
    )  # the chart's default now decides the replica count
    git(repo, "add", ".")
    git(repo, *COMMIT, "-m", "chart defaults")
    values.write_text(values.read_text().replace("replicas: 1", "replicas: 5"))
    second = differ(tmp_path)
    result = second.diff(repo, "HEAD", [env])
    assert result.has_changes
    assert "replicas: 5" in result.text()
    assert second.reused == 0


def test_a_new_base_keeps_an_affected_render_whose_files_the_move_left_alone(
    tmp_path: Path, repo: Path
) -> None:
    """The base side after a move: prod is affected by a change to a file it imports, but its
    evaluation never read it, so the previous base's render holds; a move of a file it did read
    renders it again."""
    prepared(tmp_path, repo)
    for moved, renders in (("lib/unused.libsonnet", 0), ("lib/app.libsonnet", 1)):
        path = repo / moved
        path.write_text(path.read_text() + "// moved\n")
        git(repo, *COMMIT, "-am", f"move {moved}")
        after = differ(tmp_path)
        result = after.diff(repo, "HEAD", [PROD])
        assert not result.has_changes
        # The working tree is the new base: it takes the base's render either way.
        assert (after.evaluated, after.reused) == (renders, 2 - renders)
        fresh = RevisionDiffer(trees=BaseTrees(tmp_path / f"fresh-{renders}"), persist=True)
        head = git(repo, "rev-parse", "HEAD").strip()
        fresh.prepare_base(repo, head)
        assert after._stored(head, PROD, "") == fresh._stored(head, PROD, "")
        linked = after._stored_path(head, PROD, "").stat().st_nlink > 1
        assert linked == (renders == 0)


def test_a_changed_spec_renders_again(tmp_path: Path, repo: Path) -> None:
    # spec.json is read by the loader, not by an evaluation: its namespace goes into every
    # resource and its whole text into the environment's ext var.
    prepared(tmp_path, repo)
    spec = repo / "environments" / "prod" / "spec.json"
    spec.write_text(spec.read_text().replace('"namespace": "prod"', '"namespace": "prod-eu"'))
    second = differ(tmp_path)
    assert second.diff(repo, "HEAD").has_changes
    assert (second.evaluated, second.reused) == (1, 0)


def test_an_inline_entrypoint_is_reused_whole_and_rendered_again_when_edited(
    tmp_path: Path, repo: Path
) -> None:
    # Two inline environments: several evaluations (the listing, then each by name), one read set.
    multi = "environments/multi/main.jsonnet"
    prepared(tmp_path, repo)
    same = differ(tmp_path)
    assert not same.diff(repo, "HEAD", [multi]).has_changes
    assert (same.evaluated, same.reused) == (0, 1)
    main = repo / multi
    main.write_text(main.read_text().replace("data: { hello: name }", "data: { hi: name }"))
    edited = differ(tmp_path)
    result = edited.diff(repo, "HEAD", [multi])
    assert [e.env for e in result.envs if e.has_changes] == [
        "environments/multi [multi/blue]",
        "environments/multi [multi/green]",
    ]
    assert (edited.evaluated, edited.reused) == (1, 0)


def test_the_service_keeps_working_tree_renders_in_memory_only(tmp_path: Path, repo: Path) -> None:
    """A session's checkout and its edits go when the session does: no render of them is left
    on disk (the service's differ persists base renders only)."""
    (repo / "lib" / "app.libsonnet").write_text(
        (repo / "lib" / "app.libsonnet").read_text().replace("nginx:1.25", "nginx:1.27")
    )
    service = RevisionDiffer(trees=BaseTrees(tmp_path / "trees"), persist=True, workers=1)
    expected = service.diff(repo, "HEAD").text()
    assert not list((tmp_path / "trees").glob("worktree-*"))
    assert service.diff(repo, "HEAD").text() == expected  # reused from memory
    assert (service.evaluated, service.reused) == (2, 1)


def test_kept_working_tree_renders_are_pruned_to_the_most_recent(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tk diff keeps one file per checkout and environment; clones long gone must not pile up."""
    trees = tmp_path / "trees"
    trees.mkdir()
    for age in range(5):  # renders of other clones, oldest last
        stale = trees / f"worktree-{age:024x}.json"
        stale.write_text("{}")
        os.utime(stale, (1_700_000_000 - age, 1_700_000_000 - age))
    monkeypatch.setattr("tools.tanka.diff.revision.WORKTREE_FILES_KEPT", 3)
    (repo / "lib" / "app.libsonnet").write_text(
        (repo / "lib" / "app.libsonnet").read_text().replace("nginx:1.25", "nginx:1.27")
    )
    first = differ(tmp_path)
    first.diff(repo, "HEAD")
    kept = sorted(p.name for p in trees.glob("worktree-*.json"))
    assert len(kept) == 3
    assert f"worktree-{0:024x}.json" in kept
    assert f"worktree-{1:024x}.json" in kept
    # This checkout's own render is among the kept, and the next run takes it.
    second = differ(tmp_path)
    second.diff(repo, "HEAD")
    assert second.reused >= 1
