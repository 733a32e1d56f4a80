"""spec.json parsing with Go's encoding/json rules, and Go-compatible JSON output."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.tanka.env.spec import parse_spec
from tools.tanka.errors import SpecError
from tools.tanka.gojson import encode
from tools.tanka.gojson.encode import go_dumps, go_float, go_float_g

NS = "environments/prod/main.jsonnet"


def test_defaults_and_field_order() -> None:
    env = parse_spec(b'{"spec": {"namespace": "prod"}}', NS)
    assert env.to_go_json() == (
        '{"apiVersion":"tanka.dev/v1alpha1","kind":"Environment",'
        '"metadata":{"namespace":"environments/prod/main.jsonnet"},'
        '"spec":{"namespace":"prod","resourceDefaults":{},"expectVersions":{}}}'
    )


def test_keys_match_case_insensitively_and_unknown_keys_are_ignored() -> None:
    env = parse_spec(b'{"Spec": {"APISERVER": "k8s:6443", "InjectLabels": true}, "x": 1}', NS)
    assert env.api_server == "https://k8s:6443"
    assert env.inject_labels is True
    assert env.namespace == "default"


def test_null_keeps_default_and_empty_string_overrides() -> None:
    assert parse_spec(b'{"spec": {"namespace": null}}', NS).namespace == "default"
    assert parse_spec(b'{"spec": {"namespace": ""}}', NS).namespace == ""


def test_api_server_with_scheme_is_kept() -> None:
    assert parse_spec(b'{"spec": {"apiServer": "http://a"}}', NS).api_server == "http://a"


def test_full_struct_serialises_in_go_order_with_sorted_maps() -> None:
    text = (
        b'{"spec": {"tankaEnvLabelFromFields": [".metadata.name"], "contextNames": ["c"],'
        b' "resourceDefaults": {"labels": {"b": "2", "a": "<&>"}},'
        b' "expectVersions": {"tanka": ">=0.20"}, "diffStrategy": "server"},'
        b' "metadata": {"labels": {"z": "1", "a": "2"}}}'
    )
    out = parse_spec(text, NS).to_go_json()
    assert out.index('"contextNames"') < out.index('"namespace":"default"')
    assert out.index('"diffStrategy"') < out.index('"tankaEnvLabelFromFields"')
    assert '"labels":{"a":"2","z":"1"}' in out
    assert '"resourceDefaults":{"labels":{"a":"\\u003c\\u0026\\u003e","b":"2"}}' in out
    assert '"expectVersions":{"tanka":"\\u003e=0.20"}' in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            b'{"spec": {"injectLabels": "yes"}}',
            "parsing spec.json: json: cannot unmarshal string into Go struct field "
            "Spec.spec.injectLabels of type bool",
        ),
        (
            b'{"metadata": {"labels": {"a": 1}}}',
            "parsing spec.json: json: cannot unmarshal number into Go struct field "
            "Metadata.metadata.labels of type string",
        ),
        (
            b'{"spec": "x"}',
            "parsing spec.json: json: cannot unmarshal string into Go struct field "
            "Environment.spec of type v1alpha1.Spec",
        ),
        (b"[]", "parsing spec.json: json: cannot unmarshal array into Go value of type "
         "v1alpha1.Environment"),
        (b'{"spec": {', "parsing spec.json: unexpected end of JSON input"),
        (b'{"a": 1,}', "parsing spec.json: invalid character '}' looking for beginning of "
         "object key string"),
        (b'{"a": 1 "b": 2}', "parsing spec.json: invalid character '\"' after object "
         "key:value pair"),
        (b"{} {}", "parsing spec.json: invalid character '{' after top-level value"),
        (b"// c\n{}", "parsing spec.json: invalid character '/' looking for beginning of value"),
    ],
)  # fmt: skip
def test_errors_use_go_texts(text: bytes, message: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_spec(text, NS)
    assert str(info.value) == message


def test_deprecated_keys_apply_with_warnings() -> None:
    env = parse_spec(b'{"server": "old:443", "team": "core", "namespace": "ignored"}', NS)
    assert env.api_server == "https://old:443"
    assert env.labels == {"team": "core"}
    assert env.namespace == "default"  # only used when spec.namespace is empty
    assert env.warnings == (
        "Warning: `server` is deprecated, use `spec.apiServer` instead.",
        "Warning: `team` is deprecated, use `metadata.labels.team` instead.",
    )


def test_mistyped_deprecated_key_is_fatal_with_tk_text() -> None:
    with pytest.raises(SpecError, match=r"^`server` is of type string but should be string$"):
        parse_spec(b'{"server": 1}', NS)


@pytest.mark.parametrize(
    ("value", "text"),
    [(1e21, "1e+21"), (1e20, "100000000000000000000"), (1e-7, "1e-7"), (0.000001, "0.000001"),
     (10485760.0, "10485760"), (-0.0, "-0"), (2.5, "2.5")],
)  # fmt: skip
def test_go_float_format(value: float, text: str) -> None:
    assert go_float(value) == text


def test_go_string_escapes() -> None:
    assert go_dumps(["<a&b>", "\u2028", "é", "\x01\b"]) == (
        '["\\u003ca\\u0026b\\u003e","\\u2028","é","\\u0001\\b"]'
    )


@given(st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1).filter(bool))
@settings(max_examples=2000)
def test_go_float_g_whole_numbers_as_the_general_path(number: int) -> None:
    # Whole numbers below 2**53 skip Decimal; the digits and the exponent form are the same.
    value = float(number)
    shortest = Decimal(repr(value))
    general = (
        encode._exponent(shortest, trim_negative=False)
        if not -4 <= shortest.adjusted() < 6
        else encode._fixed(shortest)
    )
    assert go_float_g(value) == general
