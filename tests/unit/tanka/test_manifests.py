"""Manifest extraction as tk's process.Extract/Unwrap: walk order, paths, Lists, error texts."""

from __future__ import annotations

from typing import Any

import pytest

from tools.tanka.errors import TankaError
from tools.tanka.manifests import (
    ManifestSchemaError,
    PrimitiveReachedError,
    extract,
    extract_by_path,
    extract_manifests,
)


def cm(name: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, **extra}


def test_walk_records_paths_in_sorted_order_and_skips_nulls() -> None:
    data = {
        "b": {"deep": {"x": cm("b")}},
        "a": [cm("a0"), {"inner": cm("a1")}, []],
        "off": None,
        "empty": {},
        "__ksonnet": "ignored",
    }
    found = extract_by_path(data)
    assert list(found) == [".a.[0]", ".a.[1].inner", ".b.deep.x"]
    assert [m["metadata"]["name"] for m in extract(data)] == ["a0", "a1", "b"]


def test_manifests_are_not_descended_and_lose_ksonnet() -> None:
    inner = cm("inner", data={"nested": cm("not-extracted")}, __ksonnet={"x": 1})
    (only,) = extract({"x": inner})
    assert "__ksonnet" not in only
    assert only["data"]["nested"]["metadata"]["name"] == "not-extracted"


def test_null_data_has_no_manifests() -> None:
    assert extract(None) == []
    assert list(extract_manifests({"a": None})) == []


def test_primitive_error_names_the_innermost_object_and_reason() -> None:
    data = {"app": {"kind": 1, "port": 8080}}
    with pytest.raises(PrimitiveReachedError) as caught:
        extract(data)
    text = str(caught.value)
    assert text.startswith(
        'found invalid Kubernetes object (at .app): missing attribute "apiVersion"'
    )
    assert text.endswith("\n\nkind: 1\nport: 8080\n")


@pytest.mark.parametrize(
    ("obj", "reason"),
    [
        ({"apiVersion": "v1", "x": "y"}, 'missing attribute "kind"'),
        ({"apiVersion": "v1", "kind": 3.5}, 'attribute "kind" is not a string, it is a float64'),
        ({"apiVersion": "v1", "kind": "", "x": "y"}, 'attribute "kind" is empty'),
    ],
)  # fmt: skip
def test_not_a_manifest_reasons(obj: dict[str, Any], reason: str) -> None:
    with pytest.raises(PrimitiveReachedError) as caught:
        extract({"o": obj})
    assert caught.value.reason == reason
    assert caught.value.path == ".o"


def test_primitive_inside_an_array_is_reported_at_the_array() -> None:
    with pytest.raises(PrimitiveReachedError) as caught:
        extract({"o": {"apiVersion": ["v1"], "x": "y"}})
    assert caught.value.path == ".o.apiVersion"
    assert caught.value.reason == 'attribute "apiVersion" is not a string, it is a []interface {}'


def test_primitive_in_array_names_the_array_and_top_level_primitive() -> None:
    with pytest.raises(PrimitiveReachedError) as caught:
        extract({"list": [cm("ok"), "oops"]})
    assert str(caught.value).startswith("found invalid Kubernetes object (at .list): ")
    with pytest.raises(PrimitiveReachedError) as top:
        extract("just a string")
    assert str(top.value) == "found invalid Kubernetes object (at .): %!s(<nil>)\n\n{}\n"


def test_env_name_prefix() -> None:
    with pytest.raises(
        TankaError, match=r"^got an error while extracting env `prod`: found invalid"
    ):
        extract({"x": 1}, env_name="prod")


def test_schema_error_text() -> None:
    bad = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"labels": {"a": 1}}}
    with pytest.raises(ManifestSchemaError) as caught:
        extract({"cm": bad})
    assert str(caught.value) == (
        ".cm has missing or invalid fields:\n"
        "  - metadata.name: missing or not of string type\n"
        "  - metadata.labels: contains non-string field 'a' of type 'float64'\n"
        "\nPlease check below object:\n"
        "  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    labels:\n      a: 1"
    )


def test_schema_error_sample_is_cut_at_ten_lines() -> None:
    bad = {
        "apiVersion": "v1",
        "kind": "X",
        "metadata": "nope",
        "data": {str(i): i for i in range(20)},
    }
    with pytest.raises(ManifestSchemaError) as caught:
        extract([bad])
    text = str(caught.value)
    assert text.startswith(".[0] has missing or invalid fields:\n")
    assert "  - metadata: missing or not an object\n" in text
    assert "  - metadata.name: missing or not of string type\n" in text
    sample = text.split("Please check below object:\n")[1].split("\n")
    assert len(sample) == 11
    assert sample[-1] == "  ..."


def test_generate_name_is_enough_and_annotations_must_be_strings() -> None:
    ok = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-"}}
    assert extract({"p": ok}) == [ok]
    bad = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": "x"}}
    with pytest.raises(
        ManifestSchemaError,
        match=r"metadata\.annotations: must be object, but got 'string' instead",
    ):
        extract({"p": bad})


def test_lists_are_unwrapped_whatever_their_kind() -> None:
    listed = {"apiVersion": "v1", "kind": "ConfigMapList", "items": [cm("one"), cm("two")]}
    crd_with_items = {"apiVersion": "x/v1", "kind": "Custom", "items": []}
    found = extract({"l": listed, "c": crd_with_items, "z": cm("z")})
    assert [m["metadata"]["name"] for m in found] == ["one", "two", "z"]


def test_list_item_errors() -> None:
    with pytest.raises(
        TankaError,
        match=r"^unwrapped list item is not an object, but 'map\[string\]interface \{\}'$",
    ):
        extract({"l": {"apiVersion": "v1", "kind": "List", "items": ["x"]}})
    with pytest.raises(
        ManifestSchemaError, match=r"^\.l\.items\[1\] has missing or invalid fields"
    ):
        extract({"l": {"apiVersion": "v1", "kind": "List", "items": [cm("a"), {"kind": "Pod"}]}})


# --- Secret values never reach an error text (tool results and Slack show these errors) --------

PASSWORD = "aHVudGVyMg=="


def test_primitive_error_inside_a_secret_hides_its_values() -> None:
    # kind Secret but no apiVersion: the walk descends into `data` and meets the value itself.
    data = {"db": {"kind": "Secret", "metadata": {"name": "db"}, "data": {"password": PASSWORD}}}
    with pytest.raises(PrimitiveReachedError) as caught:
        extract(data)
    text = str(caught.value)
    assert PASSWORD not in text
    assert "password" in text  # the key still says where to look


def test_primitive_error_next_to_a_secret_hides_its_values() -> None:
    good = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"}}
    data = {"a": {"secret": {**good, "stringData": {"password": PASSWORD}}, "stray": "x"}}
    with pytest.raises(PrimitiveReachedError) as caught:
        extract(data)
    assert PASSWORD not in str(caught.value)
    assert "stray: x" in str(caught.value)


def test_schema_error_of_a_secret_hides_its_values() -> None:
    bad = {"apiVersion": "v1", "kind": "Secret", "metadata": {}, "data": {"password": PASSWORD}}
    with pytest.raises(ManifestSchemaError) as caught:
        extract({"db": bad})
    assert PASSWORD not in str(caught.value)
    assert "metadata.name" in str(caught.value)


def test_list_item_schema_error_of_a_secret_hides_its_values() -> None:
    item = {"apiVersion": "v1", "kind": "Secret", "data": {"password": PASSWORD}}
    with pytest.raises(ManifestSchemaError) as caught:
        extract({"l": {"apiVersion": "v1", "kind": "List", "items": [item]}})
    assert PASSWORD not in str(caught.value)
