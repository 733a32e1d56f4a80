"""Per-resource diff of two renders: identity matching, unified diffs, summaries, redaction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from tools.tanka.diff.resources import (
    Change,
    EnvDiff,
    ResourceKey,
    diff_manifests,
    full_text,
    index_resources,
    resource_key,
    summarize,
    unified_diff,
)


def dump(manifest: Mapping[str, Any]) -> str:
    text: str = yaml.safe_dump(dict(manifest), sort_keys=True)
    return text


def deploy(name: str, replicas: int = 1, namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"replicas": replicas},
    }


def secret(name: str, **data: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": "default"},
        "data": data,
        "stringData": {f"plain-{k}": v for k, v in data.items()},
    }


def test_reordered_resources_are_no_change() -> None:
    old = [deploy("a"), deploy("b"), secret("s", k="djE=")]
    assert diff_manifests(old, list(reversed(old)), dump=dump) == []


def test_changed_field_gives_a_unified_diff_under_tk_names() -> None:
    [change] = diff_manifests([deploy("grafana")], [deploy("grafana", 3)], dump=dump)
    assert change.change is Change.CHANGED
    name = "apps-v1.Deployment.default.grafana"
    assert change.unified.splitlines()[:3] == [
        f"diff -u -N LIVE-{name} MERGED-{name}",
        f"--- LIVE-{name}",
        f"+++ MERGED-{name}",
    ]
    assert "-  replicas: 1" in change.unified.splitlines()
    assert "+  replicas: 3" in change.unified.splitlines()


def test_a_boolean_for_a_number_is_a_change_though_python_calls_them_equal() -> None:
    # true == 1 in Python: the fast equality check must not take them for the same value.
    old, new = deploy("web"), deploy("web")
    new["spec"]["paused"], old["spec"]["paused"] = True, 1
    [change] = diff_manifests([old], [new], dump=dump)
    assert "-  paused: 1" in change.unified.splitlines()
    assert "+  paused: true" in change.unified.splitlines()


def test_added_and_removed_diff_against_empty() -> None:
    changes = diff_manifests([deploy("old")], [deploy("new")], dump=dump)
    assert [(c.key.name, c.change) for c in changes] == [
        ("new", Change.ADDED),
        ("old", Change.REMOVED),
    ]
    added, removed = changes
    assert "@@ -0,0 +1," in added.unified
    assert all(not line.startswith("-  ") for line in added.unified.splitlines())
    assert "@@ -1," in removed.unified
    assert " +0,0 @@" in removed.unified


def test_same_name_in_other_namespace_or_kind_is_another_resource() -> None:
    changes = diff_manifests([deploy("a", namespace="x")], [deploy("a", namespace="y")], dump=dump)
    assert sorted(c.change for c in changes) == [Change.ADDED, Change.REMOVED]


def test_secret_values_never_appear_when_changed_added_or_removed() -> None:
    old = [secret("kept", k="T0xEVkFMVUU="), secret("gone", k="R09ORVZBTFVF")]
    new = [secret("kept", k="TkVXVkFMVUU="), secret("fresh", k="RlJFU0hWQUxVRQ==")]
    envs = [EnvDiff("envs/a", diff_manifests(old, new, dump=dump))]
    text = full_text(envs)
    for value in ("T0xEVkFMVUU=", "R09ORVZBTFVF", "TkVXVkFMVUU=", "RlJFU0hWQUxVRQ=="):
        assert value not in text
    assert "<redacted, value changed>" in text
    assert sorted(c.change for c in envs[0].resources) == [
        Change.ADDED,
        Change.CHANGED,
        Change.REMOVED,
    ]


def test_duplicate_identities_are_both_kept() -> None:
    index = index_resources([deploy("a"), deploy("a", 2)])
    assert [k.occurrence for k in index] == [0, 1]
    assert ResourceKey("v1", "X", "", "a", 1).diff_name() == "v1.X..a.2"


def test_generate_name_and_missing_fields() -> None:
    key = resource_key(
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "j-"}}
    )
    assert key == ResourceKey("batch/v1", "Job", "", "j-")
    assert resource_key({"kind": 3}) == ResourceKey("", "", "", "")


def test_summary_counts_and_no_differences() -> None:
    env = EnvDiff("envs/a", diff_manifests([deploy("a")], [deploy("a", 2), deploy("b")], dump=dump))
    assert env.count(Change.ADDED) == 1
    assert env.count(Change.CHANGED) == 1
    assert summarize([env]).splitlines()[0] == "envs/a: 1 added, 1 changed, 0 removed"
    assert summarize([EnvDiff("envs/b")]) == "No differences.\n"
    assert "cannot render: boom" in summarize([EnvDiff("envs/c", error="boom")])


def test_unified_diff_of_equal_texts_is_empty() -> None:
    assert unified_diff("n", "a\n", "a\n") == ""
