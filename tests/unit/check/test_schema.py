"""Strict schema validation on objects: the words and field paths of each kind of problem."""

from __future__ import annotations

import copy
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from tools.tanka.check.errors import SchemaSettingError
from tools.tanka.check.schema import (
    SchemaCatalog,
    SchemaProblem,
    bundled_versions,
    custom_schema_names,
    resolve_version,
)

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "prod"},
    "spec": {
        "replicas": 2.0,  # Jsonnet numbers arrive as floats
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80}]}]
            },
        },
    },
}


def deployment(**spec: Any) -> dict[str, Any]:
    obj = copy.deepcopy(DEPLOYMENT)
    obj["spec"].update(spec)
    return obj


@pytest.fixture(scope="module")
def catalog() -> SchemaCatalog:
    return SchemaCatalog()


def test_a_valid_deployment_has_no_problem(catalog: SchemaCatalog) -> None:
    assert catalog.validate(deployment()) == []


def test_unknown_field_is_named_with_its_path_and_a_suggestion(catalog: SchemaCatalog) -> None:
    obj = deployment()
    obj["spec"]["template"]["spec"]["containers"][0]["imagePullPolice"] = "Always"
    obj["spec"]["replicass"] = 3
    assert catalog.validate(obj) == [
        SchemaProblem("spec.replicass", "unknown field; did you mean 'replicas'?"),
        SchemaProblem(
            "spec.template.spec.containers[0].imagePullPolice",
            "unknown field; did you mean 'imagePullPolicy'?",
        ),
    ]


def test_wrong_type_and_int_or_string(catalog: SchemaCatalog) -> None:
    obj = deployment(replicas="3")
    obj["spec"]["strategy"] = {"rollingUpdate": {"maxSurge": {"percent": 25}}}
    assert catalog.validate(obj) == [
        SchemaProblem("spec.replicas", "expected integer, got string"),
        SchemaProblem(
            "spec.strategy.rollingUpdate.maxSurge", "expected string or integer, got object"
        ),
    ]


def test_missing_required_fields(catalog: SchemaCatalog) -> None:
    obj = deployment()
    del obj["spec"]["selector"]
    obj["spec"]["template"]["spec"]["containers"].append({"image": "busybox"})
    assert catalog.validate(obj) == [
        SchemaProblem("spec.selector", "required field is missing"),
        SchemaProblem("spec.template.spec.containers[1].name", "required field is missing"),
    ]


def test_enum_lists_the_allowed_values_not_the_given_one(tmp_path: Path) -> None:
    # Kubernetes' own schemas have enums only for apiVersion and kind; CRD schemas use them.
    schema = {"properties": {"spec": {"properties": {"tier": {"enum": ["gold", "silver"]}}}}}
    (tmp_path / "plan_v1.json").write_text(json.dumps(schema))
    obj = {"apiVersion": "example.com/v1", "kind": "Plan", "spec": {"tier": "hunter2"}}
    assert SchemaCatalog(extra_dir=tmp_path).validate(obj) == [
        SchemaProblem("spec.tier", 'value not allowed; allowed: "gold", "silver"')
    ]


def test_kinds_without_a_schema_are_unchecked(catalog: SchemaCatalog) -> None:
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "m"},
    }
    assert catalog.validate(monitor) is None
    # The bundled file gateway-networking-v1.json would match by name alone; the schema's own
    # group/version/kind keeps Istio's Gateway unchecked instead of wrongly validated.
    istio = {"apiVersion": "networking.istio.io/v1", "kind": "Gateway", "metadata": {"name": "g"}}
    assert catalog.validate(istio) is None


def test_custom_schemas_in_every_supported_layout(tmp_path: Path) -> None:
    schema = {"type": "object", "required": ["spec"], "properties": {"spec": {"type": "object"}}}
    names = custom_schema_names("cert-manager.io/v1", "Certificate")
    assert names == [
        "cert-manager.io/certificate_v1.json",
        "certificate_v1.json",
        "cert-manager.io_certificate_v1.json",
        "certificate-cert-manager-v1.json",
    ]
    cert = {"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": {"name": "c"}}
    for name in names:
        folder = tmp_path / name.replace("/", "_")
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(schema))
        assert SchemaCatalog(extra_dir=folder).validate(cert) == [
            SchemaProblem("spec", "required field is missing")
        ], name


def test_a_custom_schema_that_is_broken_is_a_setting_error(tmp_path: Path) -> None:
    (tmp_path / "widget_v1.json").write_text("{not json")
    (tmp_path / "gadget_v1.json").write_text('{"type": 12}')
    catalog = SchemaCatalog(extra_dir=tmp_path)
    with pytest.raises(SchemaSettingError, match=r"widget_v1.json: not a readable JSON Schema"):
        catalog.validate({"apiVersion": "example.com/v1", "kind": "Widget"})
    with pytest.raises(
        SchemaSettingError, match=r"gadget_v1.json: not a valid JSON Schema at type"
    ):
        catalog.validate({"apiVersion": "example.com/v1", "kind": "Gadget"})


def test_versions_resolve_to_bundled_minors() -> None:
    versions = bundled_versions()
    assert versions[0] == "1.25"
    assert versions == tuple(sorted(versions, key=lambda v: tuple(map(int, v.split(".")))))
    assert resolve_version(None) == versions[-1]
    assert resolve_version("v1.30.4") == "1.30"
    with pytest.raises(SchemaSettingError, match=r"TANKA_BOT_KUBERNETES_VERSION=1.9: no schemas"):
        resolve_version("1.9")
    with pytest.raises(SchemaSettingError, match="not a Kubernetes version"):
        resolve_version("latest")


def test_an_older_version_knows_fewer_fields() -> None:
    # ResourceClaims in the pod spec arrived in 1.26: 1.25's strict schema rejects them.
    obj = deployment()
    obj["spec"]["template"]["spec"]["resourceClaims"] = [{"name": "gpu"}]
    assert SchemaCatalog("1.25").validate(obj) == [
        SchemaProblem("spec.template.spec.resourceClaims", "unknown field")
    ]
    assert SchemaCatalog("1.37").validate(obj) == []


def test_validation_never_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("schema validation tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    catalog = SchemaCatalog("1.28")  # a version no other test loaded: a cold start
    assert catalog.validate(deployment(replicas="x")) == [
        SchemaProblem("spec.replicas", "expected integer, got string")
    ]


def test_remembered_valid_subtrees_never_hide_a_problem() -> None:
    # Validation skips a subtree already found valid against the same definition (generated
    # environments repeat them); what failed is validated again, whole paths and all.
    catalog = SchemaCatalog()
    good = deployment()
    bad = deployment()
    bad["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": "80"}]
    assert catalog.validate(good) == []
    port = [
        SchemaProblem(
            "spec.template.spec.containers[0].ports[0].containerPort",
            "expected integer, got string",
        )
    ]
    assert catalog.validate(bad) == port
    assert catalog.validate(bad) == port
    assert catalog.validate(good) == []
    # true == 1 in Python, not in JSON: a remembered `replicas: 1` does not pass `true`.
    assert catalog.validate(deployment(replicas=1)) == []
    assert catalog.validate(deployment(replicas=True)) == [
        SchemaProblem("spec.replicas", "expected integer, got boolean")
    ]


def test_what_one_version_found_valid_is_not_taken_for_another() -> None:
    # Both versions' definitions sit at the same paths: 1.37's pod spec with resourceClaims is
    # valid, 1.25's is not.
    obj = deployment()
    obj["spec"]["template"]["spec"]["resourceClaims"] = [{"name": "gpu"}]
    assert SchemaCatalog("1.37").validate(obj) == []
    assert SchemaCatalog("1.25").validate(obj) == [
        SchemaProblem("spec.template.spec.resourceClaims", "unknown field")
    ]
