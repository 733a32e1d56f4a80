"""Secret values never survive redaction; everything else is left exactly as it was; the
values of every Secret-like object are what a SecretMask learns."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tools.redaction import SecretMask
from tools.tanka.redact import (
    REDACTED,
    REDACTED_CHANGED,
    is_secret,
    learn_secret_values,
    redact_against,
    redact_all,
    redact_manifest,
)


def secret(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"}, **fields}


def test_data_and_string_data_values_are_replaced_keys_kept() -> None:
    out = redact_manifest(secret(data={"password": "aHVudGVyMg=="}, stringData={"user": "root"}))
    assert out["data"] == {"password": REDACTED}
    assert out["stringData"] == {"user": REDACTED}
    assert out["metadata"] == {"name": "db"}


def test_input_is_not_modified() -> None:
    original = secret(data={"k": "dmFsdWU="})
    before = copy.deepcopy(original)
    redact_manifest(original)
    assert original == before


def test_other_kinds_are_untouched() -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "visible"}}
    assert redact_manifest(config) == config


def test_non_map_data_is_hidden_whole() -> None:
    assert redact_manifest(secret(data="c2VjcmV0"))["data"] == REDACTED
    assert redact_manifest(secret(data=None))["data"] is None


def test_changed_values_are_marked_against_the_other_revision() -> None:
    old = secret(data={"same": "YQ==", "changed": "Yg==", "gone": "Yw=="})
    new = secret(data={"same": "YQ==", "changed": "ZA==", "added": "ZQ=="})
    assert redact_against(new, old)["data"] == {
        "same": REDACTED,
        "changed": REDACTED_CHANGED,
        "added": REDACTED,
    }


def test_redact_all_keeps_order() -> None:
    items = [secret(data={"a": "x"}), {"kind": "Service"}]
    assert [m["kind"] for m in redact_all(items)] == ["Secret", "Service"]


@given(
    st.dictionaries(st.text(min_size=1), st.text(min_size=1)),
    st.dictionaries(st.text(min_size=1), st.text(min_size=1)),
)
def test_no_value_survives(data: dict[str, str], string_data: dict[str, str]) -> None:
    out = redact_against(secret(data=data, stringData=string_data), secret(data=string_data))
    for field in ("data", "stringData"):
        assert set(out[field]) == set(secret(data=data, stringData=string_data)[field])
        assert set(out[field].values()) <= {REDACTED, REDACTED_CHANGED}


@pytest.mark.parametrize("kind", ["secret", "SECRET", "sEcReT"])
def test_kind_is_matched_in_any_letter_case(kind: str) -> None:
    out = redact_manifest({"kind": kind, "data": {"k": "dmFsdWU="}, "stringData": {"s": "v"}})
    assert out["data"] == {"k": REDACTED}
    assert out["stringData"] == {"s": REDACTED}
    assert not is_secret({"kind": "SecretStore"})
    assert not is_secret({"kind": None})


def test_learn_secret_values_of_secrets_only() -> None:
    mask = SecretMask()
    learn_secret_values(
        [
            secret(
                data={"password": base64.b64encode(b"dummy-pass-1").decode()},
                stringData={"token": "dummy-token-2", "port": 54321, "nested": {"x": ["dummy-3x"]}},
            ),
            {"kind": "secret", "stringData": {"lower": "dummy-lower-4"}},
            {"kind": "ConfigMap", "data": {"shown": "dummy-not-a-secret"}},
        ],
        mask,
    )
    text = "dummy-pass-1 dummy-token-2 54321 dummy-3x dummy-lower-4 dummy-not-a-secret"
    masked = " ".join([REDACTED] * 5)
    assert mask.apply(text) == f"{masked} dummy-not-a-secret"
