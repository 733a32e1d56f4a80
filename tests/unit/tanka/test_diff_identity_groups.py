"""Environments generated from one template share a group when their rendered diffs differ only
in each environment's own identity (its directory, name, namespace, spec.json values), and never
when they differ in anything else (tools.tanka.diff.groups)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fakes.tanka_envs import LIBRARY, MEMORY, main_jsonnet, write_project
from tests.git import git
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.groups import group_envs, grouped_summary, grouped_text
from tools.tanka.diff.resources import Change, EnvDiff, ResourceDiff, ResourceKey
from tools.tanka.diff.revision import RevisionDiffer

ENVS = 300


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated") / "repo"
    write_project(root, ENVS, variants=4)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


@pytest.fixture(scope="module")
def differ(tmp_path_factory: pytest.TempPathFactory) -> RevisionDiffer:
    # Shared: the copies have the same base commit, so its renders are made once.
    return RevisionDiffer(trees=BaseTrees(tmp_path_factory.mktemp("trees")))


def test_a_library_change_over_300_generated_environments_reads_as_4_groups(
    generated: Path, differ: RevisionDiffer, tmp_path: Path
) -> None:
    root = tmp_path / "repo"
    shutil.copytree(generated, root, symlinks=True)
    library = root / "lib" / "app.libsonnet"
    # Every environment changes its image and its memory limit, which depends on its variant.
    library.write_text(
        LIBRARY.replace("nginx:1.25", "nginx:1.27").replace(
            MEMORY, "['384Mi', '768Mi', '1536Mi', '3Gi']"
        )
    )
    result = differ.diff(root, "HEAD")
    assert len([e for e in result.envs if e.has_changes]) == ENVS
    groups = group_envs(result.envs)
    assert [len(g.envs) for g in groups] == [75, 75, 75, 75]
    assert groups[1].names[:3] == (
        "environments/cell-0001",
        "environments/cell-0005",
        "environments/cell-0009",
    )
    text = grouped_text(groups)
    assert text.startswith(
        "300 environments in 4 groups, 300 resources changed; within a group the diffs differ "
        "only in each environment's own name, namespace and spec.json values\n"
    )
    # Each group's diff is shown once, as the first environment's real diff.
    assert text.count("+        image: nginx:1.27") == 4
    assert "tenant-1\n" in text
    assert "tenant-5\n" not in text
    assert text.count("-            memory: 2Gi\n+            memory: 3Gi") == 1


def test_a_generated_environment_changed_otherwise_keeps_a_group_of_its_own(
    generated: Path, differ: RevisionDiffer, tmp_path: Path
) -> None:
    root = tmp_path / "repo"
    shutil.copytree(generated, root, symlinks=True)
    (root / "lib" / "app.libsonnet").write_text(LIBRARY.replace("nginx:1.25", "nginx:1.27"))
    odd = root / "environments" / "cell-0010" / "main.jsonnet"  # variant 2, scaled by hand
    odd.write_text(main_jsonnet(10, 4, "{ deployment+: { spec+: { replicas: 4 } } }"))
    result = differ.diff(root, "HEAD")
    groups = group_envs(result.envs)
    # The image line's context is the same in every variant: one change, but for cell-010's.
    assert [len(g.envs) for g in groups] == [299, 1]
    assert groups[1].names == ("environments/cell-0010",)
    assert "+  replicas: 4" in groups[1].unified()


def _change(env: str, body: str, **identity: str) -> EnvDiff:
    key = ResourceKey("v1", "ConfigMap", identity.get("namespace", ""), "web-config")
    text = f"--- v1.ConfigMap.web-config\tbase\n+++ v1.ConfigMap.web-config\tworking tree\n{body}"
    fields = {"directory": env, **identity}
    return EnvDiff(env, [ResourceDiff(key, Change.CHANGED, text)], identity=tuple(fields.items()))


def test_diffs_apart_from_identity_are_one_group_showing_the_first_real_diff() -> None:
    a = _change("envs/a", "-url: web.ns-a.svc\n+url: web.ns-a.svc.local\n", namespace="ns-a")
    b = _change("envs/b", "-url: web.ns-b.svc\n+url: web.ns-b.svc.local\n", namespace="ns-b")
    groups = group_envs([a, b])
    assert [g.names for g in groups] == [("envs/a", "envs/b")]
    assert "web.ns-a.svc.local" in grouped_text(groups)
    assert "ns-b" not in grouped_text(groups).split("\n# ", 1)[1].split("\n", 1)[1]


@pytest.mark.parametrize(
    ("body_a", "body_b"),
    [
        # A value that is not the environment's own: a real difference.
        ("+replicas: 2\n", "+replicas: 3\n"),
        # One names its own namespace, the other the first one's: not the same change.
        ("+target: ns-a\n", "+target: ns-a\n"),
        # An identity only as part of a longer word is not the identity.
        ("+host: ns-a1\n", "+host: ns-b2\n"),
        ("+host: x.ns-a\n", "+host: x.ns-bb\n"),
    ],
)
def test_diffs_that_differ_in_anything_else_stay_apart(body_a: str, body_b: str) -> None:
    a = _change("envs/a", body_a, namespace="ns-a")
    b = _change("envs/b", body_b, namespace="ns-b")
    assert len(group_envs([a, b])) == 2


def test_values_without_a_letter_are_never_an_identity() -> None:
    # With `1` and `3` as namespaces, 1 -> 2 and 3 -> 2 would read as one change.
    a = _change("envs/a", "-replicas: 1\n+replicas: 2\n", namespace="1")
    b = _change("envs/b", "-replicas: 3\n+replicas: 2\n", namespace="3")
    assert len(group_envs([a, b])) == 2


def test_errors_apart_from_identity_share_a_group_and_others_do_not() -> None:
    def broken(env: str, error: str) -> EnvDiff:
        return EnvDiff(env, error=error, identity=(("directory", env),))

    same = [broken(f"envs/e{i}", f"working tree: envs/e{i}/main.jsonnet:3:1 boom") for i in (1, 2)]
    other = broken("envs/e3", "working tree: envs/e3/main.jsonnet:4:1 boom")
    groups = group_envs([*same, other])
    assert [g.names for g in groups] == [("envs/e1", "envs/e2"), ("envs/e3",)]
    assert grouped_summary(groups).splitlines()[1] == (
        "2 environments: cannot render: working tree: envs/e1/main.jsonnet:3:1 boom"
    )
