"""SecretMask: every known value, in every form, hidden behind one marker that tells nothing."""

from __future__ import annotations

import base64
import threading

from hypothesis import given
from hypothesis import strategies as st

from tools.redaction import MIN_LINE_LENGTH, MIN_VALUE_LENGTH, REDACTED, SecretMask
from tools.redaction.mask import NOT_SECRET

PASSWORD = "dummy-password-7Hq2"
CERT = (
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBdummyCertificateLineOne000000\n"
    "MIIBdummyCertificateLineTwo111111\n"
    "-----END CERTIFICATE-----\n"
)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_plain_value_and_its_base64_forms() -> None:
    mask = SecretMask([PASSWORD])
    text = f"a {PASSWORD} b {b64(PASSWORD)} c {b64(PASSWORD).rstrip('=')}x d"
    assert mask.apply(text) == f"a {REDACTED} b {REDACTED} c {REDACTED}x d"


def test_url_safe_base64_padded_or_not() -> None:
    value = "dummy>>?password~~"  # its standard base64 has + and /, the URL-safe one - and _
    url_safe = base64.urlsafe_b64encode(value.encode()).decode()
    assert url_safe != b64(value)
    mask = SecretMask([value])
    text = f"a {url_safe} b {url_safe.rstrip('=')} c {b64(value)} d"
    assert mask.apply(text) == f"a {REDACTED} b {REDACTED} c {REDACTED} d"
    encoded = SecretMask()
    encoded.add_encoded(b64(value))  # a Secret's data value: its URL-safe form too
    assert encoded.apply(f"token={url_safe}") == f"token={REDACTED}"


def test_booleans_and_nulls_spelled_as_strings_are_not_masked() -> None:
    mask = SecretMask(["true", "False", " yes ", "null"])
    mask.add_encoded(b64("true"))
    text = "enabled: true\ndebug: False\nready: yes\nvalue: null\n"
    assert mask.apply(text) == text
    assert mask.size == 0


def test_encoded_value_and_its_decoded_text() -> None:
    mask = SecretMask()
    mask.add_encoded(b64(PASSWORD))
    assert mask.apply(f"{PASSWORD}|{b64(PASSWORD)}") == f"{REDACTED}|{REDACTED}"


def test_encoded_value_that_is_not_text_is_masked_as_written() -> None:
    binary = base64.b64encode(bytes(range(200, 240))).decode()
    mask = SecretMask()
    mask.add_encoded(binary)
    mask.add_encoded("not base64 at all!")
    assert mask.apply(f"k: {binary}\nv: not base64 at all!") == f"k: {REDACTED}\nv: {REDACTED}"


def test_surrounding_whitespace_and_escaped_forms() -> None:
    mask = SecretMask([PASSWORD + "\n", 'say "hi" \\ there'])
    assert mask.apply(f"x={PASSWORD};") == f"x={REDACTED};"
    assert mask.apply(b64(PASSWORD)) == REDACTED  # the base64 of the trimmed value
    assert mask.apply('{"v": "say \\"hi\\" \\\\ there"}') == f'{{"v": "{REDACTED}"}}'


def test_a_value_escaped_for_slack_is_masked_too() -> None:
    # The bot escapes text it shows in Slack (&, <, >) before its chat client masks it.
    mask = SecretMask(["p&ss<wo>rd-9"])
    assert mask.apply("x: p&amp;ss&lt;wo&gt;rd-9\n") == f"x: {REDACTED}\n"
    assert mask.apply("x: p&ss<wo>rd-9") == f"x: {REDACTED}"


def test_short_values_are_not_masked() -> None:
    mask = SecretMask(["yes", " ab ", "", "1"])
    mask.add_encoded(b64("no"))
    assert mask.size == 0
    text = "replicas: 1\nenabled: yes\nflag: ab"
    assert mask.apply(text) == text
    assert MIN_VALUE_LENGTH == 4


def test_multi_line_value_whole_and_line_by_line_in_a_diff() -> None:
    mask = SecretMask([CERT])
    added = "".join(f"+    {line}\n" for line in CERT.splitlines()) + "-  short\n"
    assert mask.apply(added) == f"+    {REDACTED}\n-  short\n"  # the whole value, one run
    lines = CERT.splitlines()
    changed = f"     {lines[0]}\n-    {lines[1]}\n+    other\n     {lines[2]}\n"
    # Its lines holding key material go, alone; the header line is in every certificate.
    assert mask.apply(changed) == (
        f"     {lines[0]}\n-    {REDACTED}\n+    other\n     {REDACTED}\n"
    )
    assert mask.apply(f"ca: {CERT!r}") == f"ca: '{REDACTED}'"  # escaped, as in JSON or Python
    assert mask.apply(f"[{CERT}]") == f"[{REDACTED}\n]"  # the trailing newline stays


def test_short_lines_of_a_multi_line_value_are_not_masked() -> None:
    value = "user = admin-dummy-7account\n}\nport = 5432\nmode = readonly-replica\n"
    mask = SecretMask([value])
    assert MIN_LINE_LENGTH == 16
    text = "}\nport = 5432\nuser = admin-dummy-7account\nmode = readonly-replica"
    assert mask.apply(text) == f"}}\nport = 5432\n{REDACTED}\nmode = readonly-replica"
    assert mask.apply("a}b") == "a}b"


def test_one_marker_for_every_value_whatever_its_length() -> None:
    values = ["abcd", "x" * 40, "a much longer dummy secret value " * 5]
    mask = SecretMask(values)
    assert {mask.apply(v) for v in values} == {REDACTED}
    assert {mask.apply(b64(v)) for v in values} == {REDACTED}


def test_overlapping_values_are_one_run() -> None:
    mask = SecretMask(["dummy-left-part", "part-dummy-right"])
    assert mask.apply("<dummy-left-part-dummy-right>") == f"<{REDACTED}>"
    assert mask.apply("dummy-left-partdummy-left-part") == REDACTED


def test_values_learned_later_apply_from_then_on() -> None:
    mask = SecretMask()
    assert mask.apply(PASSWORD) == PASSWORD
    mask.add(PASSWORD)
    assert mask.apply(PASSWORD) == REDACTED
    size = mask.size
    mask.add(PASSWORD)
    assert mask.size == size


def test_shared_between_threads() -> None:
    mask = SecretMask()
    values = [f"dummy-value-{i:04d}" for i in range(200)]
    errors: list[BaseException] = []

    def learn() -> None:
        for value in values:
            mask.add(value)

    def apply() -> None:
        try:
            for value in values:
                out = mask.apply(f"[{value}]")
                assert out in (f"[{value}]", f"[{REDACTED}]")
        except BaseException as exc:  # reported in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=learn), *(threading.Thread(target=apply) for _ in range(3))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert mask.apply(" ".join(values)) == " ".join([REDACTED] * len(values))


# The marker's own characters are left out of the first alphabet, so a value cannot be formed by
# a marker and the text next to it; the second property allows them and checks what is shown
# between markers.
SAFE = "ABFGHIJKLMNOPQRSTUVWXYZbfghijklmnopqsuvwxyz0123456789-_=+/ :\n"
ANY = SAFE + "<>redact"


@st.composite
def values_and_text(draw: st.DrawFn, alphabet: str) -> tuple[list[str], str]:
    values = draw(st.lists(st.text(alphabet, min_size=1, max_size=24), min_size=1, max_size=8))
    pieces = draw(
        st.lists(
            st.one_of(
                st.sampled_from(values),
                st.sampled_from(values).map(b64),
                st.text(alphabet, max_size=10),
            ),
            max_size=20,
        )
    )
    return values, "".join(pieces)


def _long_enough(values: list[str]) -> list[str]:
    return [v for v in values if len(v.strip()) >= MIN_VALUE_LENGTH
            and v.strip().lower() not in NOT_SECRET]  # fmt: skip


@given(values_and_text(SAFE))
def test_masked_text_never_contains_a_value(case: tuple[list[str], str]) -> None:
    values, text = case
    out = SecretMask(values).apply(text)
    for value in _long_enough(values):
        assert value not in out
        assert b64(value) not in out


@given(values_and_text(ANY))
def test_no_value_between_markers(case: tuple[list[str], str]) -> None:
    values, text = case
    shown = SecretMask(values).apply(text).split(REDACTED)
    for value in _long_enough(values):
        assert not any(value in part for part in shown)


def test_a_value_folded_over_lines_is_masked_whole() -> None:
    # YAML folds a long plain scalar at a space; a diff then puts each part behind a prefix.
    value = "dummy passphrase " * 6 + "end"
    mask = SecretMask([value])
    folded = value.replace(" dummy passphrase end", "\n+    dummy passphrase end")
    assert mask.apply(f"+  k: {folded}\n+  other: shown\n") == (
        f"+  k: {REDACTED}\n+  other: shown\n"
    )


def test_a_trailing_newline_does_not_swallow_the_next_line() -> None:
    mask = SecretMask([PASSWORD + "\n"])
    assert mask.apply(f"-  a: {PASSWORD}\n+  b: kept\n") == f"-  a: {REDACTED}\n+  b: kept\n"


def test_a_document_is_masked_by_its_credentials_not_its_vocabulary() -> None:
    # A URL, a JSON document and a config file: their passwords and keys go, wherever and
    # however they are copied; the words every manifest holds stay.
    docker = '{"auths": {"registry.example.com": {"username": "robot", "password": "R0b0tPass9"}}}'
    url = "postgres://grafana:S3cr3tPassw0rd@db.prod.svc:5432/grafana"
    config = "receiver: default\napi_key: k3y-9a8b7c6d5e\n"
    mask = SecretMask([docker, url, config])
    text = "password: x\nreceiver: default\nurl: db.prod.svc:5432/grafana\nuser: robot\n"
    assert mask.apply(text) == text
    assert mask.apply("pw: S 3 c r 3 t P a s s w 0 r d") == f"pw: {REDACTED}"
    assert mask.apply("robot/R0B0TPASS9") == f"robot/{REDACTED}"
    assert mask.apply("key=k3y-9a8b7c6d5e") == f"key={REDACTED}"
    assert mask.apply(url) == REDACTED
