"""tk's processing pipeline: namespaces, labels, resourceDefaults, targets and sort order."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from tools.tanka.env.spec import Environment, ResourceDefaults
from tools.tanka.errors import TankaError
from tools.tanka.pipeline.process import ProcessOptions, env_label, process


def obj(kind: str, name: str, **metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name, **metadata}}


def names(manifests: list[dict[str, Any]]) -> list[str]:
    return [f"{m['kind']}/{m['metadata']['name']}" for m in manifests]


def test_namespace_injection_rules() -> None:
    items = [
        obj("ConfigMap", "plain"),
        obj("ConfigMap", "explicit-empty", namespace=""),
        obj("ConfigMap", "null-ns", namespace=None),
        obj("ConfigMap", "own", namespace="other"),
        obj("ClusterRole", "cluster"),
        obj("MyClusterThing", "crd-kind"),
        obj("ClusterRole", "forced", annotations={"tanka.dev/namespaced": "true"}),
        obj("ConfigMap", "opted-out", annotations={"tanka.dev/namespaced": "yes"}),
    ]
    out = {
        m["metadata"]["name"]: m["metadata"]
        for m in process(items, ProcessOptions(default_namespace="prod"))
    }
    assert out["plain"]["namespace"] == "prod"
    assert out["explicit-empty"]["namespace"] == ""  # kept, as tk's code does
    assert out["null-ns"]["namespace"] == "prod"
    assert out["own"]["namespace"] == "other"
    assert "namespace" not in out["cluster"]
    assert out["crd-kind"]["namespace"] == "prod"  # unknown kinds count as namespaced
    assert out["forced"]["namespace"] == "prod"
    assert "namespace" not in out["opted-out"]


def test_empty_annotations_are_dropped_but_empty_labels_kept() -> None:
    items = [
        obj("ConfigMap", "a", annotations={}, labels={}),
        obj("ConfigMap", "b", annotations=None),
    ]
    out = process(items, ProcessOptions(default_namespace="ns"))
    assert out[0]["metadata"] == {"name": "a", "labels": {}, "namespace": "ns"}
    assert out[1]["metadata"] == {"name": "b", "namespace": "ns"}


def test_empty_spec_namespace_changes_nothing() -> None:
    item = obj("ConfigMap", "a", annotations={})
    (out,) = process([item], ProcessOptions(default_namespace=""))
    assert out["metadata"] == {"name": "a", "annotations": {}}


def test_inject_labels_default_fields_hash_name_and_entrypoint() -> None:
    env = Environment(name="environments/prod", metadata_namespace="environments/prod/main.jsonnet")
    env.inject_labels = True
    options = ProcessOptions.from_environment(env)
    expected = hashlib.sha256(b"environments/prod:environments/prod/main.jsonnet").hexdigest()[:48]
    out = process(
        [obj("ConfigMap", "a", labels={"tanka.dev/environment": "old"}), obj("Namespace", "n")],
        options,
    )
    assert [m["metadata"]["labels"]["tanka.dev/environment"] for m in out] == [expected, expected]
    assert len(expected) == 48


def test_label_from_fields() -> None:
    env = Environment(name="e", labels={"team": "infra"}, inject_labels=True)
    env.tanka_env_label_from_fields = [
        ".metadata.labels.team",
        ".spec.namespace",
        ".spec.injectLabels",
    ]
    assert (
        env_label(ProcessOptions.from_environment(env))
        == hashlib.sha256(b"infra:default:true").hexdigest()[:48]
    )
    env.tanka_env_label_from_fields = [".metadata.labels"]
    with pytest.raises(
        TankaError, match="could not get struct value at path: unsupported value type"
    ):
        env_label(ProcessOptions.from_environment(env))


def test_resource_defaults_never_override_and_run_after_namespace() -> None:
    env = Environment(namespace="ns")
    env.resource_defaults = ResourceDefaults(
        {"tanka.dev/namespaced": "false", "a": "default"}, {"l": "d"}
    )
    items = [
        obj("ConfigMap", "x", annotations={"a": "mine"}, labels={"l": "mine"}),
        obj("ConfigMap", "y"),
    ]
    out = process(items, ProcessOptions.from_environment(env))
    assert out[0]["metadata"]["annotations"] == {"a": "mine", "tanka.dev/namespaced": "false"}
    assert out[0]["metadata"]["labels"] == {"l": "mine"}
    assert out[1]["metadata"]["namespace"] == "ns"  # the default annotation came too late
    assert out[1]["metadata"]["labels"] == {"l": "d"}


@pytest.mark.parametrize(
    ("targets", "kept"),
    [
        (("deployment/web",), ["Deployment/web"]),
        (("DEPLOYMENT/WEB",), ["Deployment/web"]),
        (("deployment/.*",), ["Deployment/api", "Deployment/web"]),
        (("deployment/we",), []),
        (("!deployment/.*",), ["Service/web"]),
        (("service/.*", "deployment/api"), ["Service/web", "Deployment/api"]),
        # tk quirk: a negative expression "matches" everything, so positives no longer narrow.
        ((".*/web", "!service/.*"), ["Deployment/api", "Deployment/web"]),
    ],
)
def test_target_filters(targets: tuple[str, ...], kept: list[str]) -> None:
    items = [obj("Deployment", "web"), obj("Deployment", "api"), obj("Service", "web")]
    assert names(process(items, ProcessOptions(targets=targets))) == kept


def test_bad_target_regex_is_reported_with_the_docs_link() -> None:
    with pytest.raises(
        TankaError, match=r"(?s)^Error Parsing Regexp.*\nSee https://tanka\.dev/output-filtering/"
    ):
        process([obj("Service", "x")], ProcessOptions(targets=("deployment/(",)))


def test_sort_order_kind_list_then_kind_namespace_name() -> None:
    items = [
        obj("Deployment", "b"),
        obj("Zebra", "a"),
        obj("Alpha", "a"),
        obj("Service", "z"),
        obj("Deployment", "a", namespace="z"),
        obj("Deployment", "c", namespace="a"),
        obj("Namespace", "ns"),
        obj("CustomResourceDefinition", "crd"),
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-"}},
    ]
    out = process(items, ProcessOptions(default_namespace=""))
    assert [
        f"{m['kind']}/{m['metadata'].get('namespace', '')}/{m['metadata'].get('name', '')}"
        for m in out
    ] == [
        "Namespace//ns",
        "CustomResourceDefinition//crd",
        "Service//z",
        "Pod//",
        "Deployment//b",
        "Deployment/a/c",
        "Deployment/z/a",
        "Alpha//a",
        "Zebra//a",
    ]


def test_sort_is_stable_for_exact_ties() -> None:
    first = {"apiVersion": "v1", "kind": "X", "metadata": {"name": "same"}}
    second = {"apiVersion": "v2", "kind": "X", "metadata": {"name": "same"}}
    assert process([first, second], ProcessOptions())[0]["apiVersion"] == "v1"
    assert process([second, first], ProcessOptions())[0]["apiVersion"] == "v2"
