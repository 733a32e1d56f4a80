"""Finding messages about a Secret never carry its values, raw or base64-decoded."""

from __future__ import annotations

from tools.tanka.check.secrets import scrub, secret_values

SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "data": {"password": "aHVudGVyMg==", "pin": "MTI="},
    "stringData": {"token": "tok-123456", "short": "ab"},
}


def test_values_raw_and_decoded() -> None:
    assert secret_values(SECRET) == {
        "aHVudGVyMg==",
        "hunter2",
        "MTI=",
        "12",
        "tok-123456",
        "ab",
    }
    assert secret_values({"kind": "ConfigMap", "data": {"a": "b"}}) == set()


def test_scrub_replaces_every_value_and_keeps_the_words_around_them() -> None:
    text = "password hunter2 (aHVudGVyMg==), token tok-123456, pin 12, short ab, about, 123"
    assert scrub(text, SECRET) == (
        "password <redacted> (<redacted>), token <redacted>, pin <redacted>, short <redacted>, "
        "about, 123"
    )


def test_other_kinds_are_left_alone() -> None:
    assert scrub("hunter2", {"kind": "ConfigMap", "data": {"p": "hunter2"}}) == "hunter2"
