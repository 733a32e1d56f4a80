"""Sprig's `snakecase`/`kebabcase` (huandu/xstrings ToSnakeCase/ToKebabCase): helmTemplate's and
kustomizeBuild's default object keys and `tk export --format` names depend on them byte for byte.

The table is xstrings' own TestToSnakeCaseAndToKebabCase (convert_test.go at huandu/xstrings
6ae33fe8028ca830b1d07eebeee74e2399b5027e, tag v1.4.0), with the kebab expectations derived from
it as that test derives them. tk pins xstrings v1.5.0, which Helm's library (helm-python-sdk)
embeds too: generated strings are checked against it.
"""

from __future__ import annotations

import random

import pytest

from tools.tanka.export.template import render_template
from tools.tanka.natives import helm_lib
from tools.tanka.natives.exec import keyed_manifests
from tools.tanka.natives.snakecase import kebabcase, snakecase

XSTRINGS_TABLE = {
    "HTTPServer": "http_server",
    "_camelCase": "_camel_case",
    "NoHTTPS": "no_https",
    "Wi_thF": "wi_th_f",
    "_AnotherTES_TCaseP": "_another_tes_t_case_p",
    "ALL": "all",
    "_HELLO_WORLD_": "_hello_world_",
    "HELLO_WORLD": "hello_world",
    "HELLO____WORLD": "hello____world",
    "TW": "tw",
    "_C": "_c",
    "http2xx": "http_2xx",
    "HTTP2XX": "http2_xx",
    "HTTP20xOK": "http_20x_ok",
    "HTTP20xStatus": "http_20x_status",
    "HTTP-20xStatus": "http_20x_status",
    "a": "a",
    "Duration2m3s": "duration_2m3s",
    "Bld4Floor3rd": "bld4_floor_3rd",
    " _-_ ": "_____",
    "a1b2c3d": "a_1b2c3d",
    "A//B%%2c": "a//b%%2c",
    "HTTP状态码404/502Error": "http_状态码404/502_error",
    "中文(字符)": "中文(字符)",
    "混合ABCWords与123数字456": "混合_abc_words_与123_数字456",
    "  sentence case  ": "__sentence_case__",
    " Mixed-hyphen case _and SENTENCE_case and UPPER-case": (
        "_mixed_hyphen_case__and_sentence_case_and_upper_case"
    ),
    "FROM CamelCase to snake/kebab-case": "from_camel_case_to_snake/kebab_case",
    "": "",
    "Abc\ufffdE\ufffdf\ufffdd\ufffd2\ufffd00z\ufffdZZ\ufffdZZ": (
        "abc_\ufffde\ufffdf\ufffdd_\ufffd2\ufffd00z_\ufffdzz\ufffdzz"
    ),
    "\ufffd\ufffd\ufffd\ufffd\ufffd": "\ufffd\ufffd\ufffd\ufffd\ufffd",
    "abc_123_def": "abc_123_def",
}


@pytest.mark.parametrize(("given", "expected"), XSTRINGS_TABLE.items())
def test_snakecase_follows_xstrings_table(given: str, expected: str) -> None:
    assert snakecase(given) == expected


@pytest.mark.parametrize(("given", "expected"), XSTRINGS_TABLE.items())
def test_kebabcase_follows_xstrings_table(given: str, expected: str) -> None:
    assert kebabcase(given) == expected.replace("_", "-")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # The examples in ToSnakeCase's own documentation.
        ("FirstName", "first_name"),
        ("GO_PATH", "go_path"),
        ("GO PATH", "go_path"),
        ("GO-PATH", "go_path"),
        # Keys tk gives real charts' objects (kind "_" name): a digit run is split from the
        # letters before it when letters follow it.
        ("Deployment_test-k8s-deployment", "deployment_test_k_8s_deployment"),
        ("Job_flux2-flux-check-o11y-ingest", "job_flux2_flux_check_o_11y_ingest"),
        ("ConfigMap_my-app", "config_map_my_app"),
        # Go's unicode classes, not Python's: `<` is a symbol, not punctuation; U+001F is no
        # space to Go; U+0130 lowers to "i".
        ("Service_<nil>", "service_<_nil_>"),
        ("A\x1fB", "a_\x1f_b"),
        ("X_\u0130", "x_i"),
    ],
)
def test_snakecase_of_documented_and_real_keys(given: str, expected: str) -> None:
    assert snakecase(given) == expected


def test_helm_template_keys_objects_as_tk() -> None:
    stream = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: test-k8s-deployment\n---\n"
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: flux2-flux-check-o11y-ingest\n"
    )
    assert list(keyed_manifests(stream, "helmTemplate")) == [
        "deployment_test_k_8s_deployment",
        "job_flux2_flux_check_o_11y_ingest",
    ]


def test_export_format_snakecase_and_kebabcase_are_xstrings() -> None:
    manifest = {"kind": "Deployment", "metadata": {"name": "test-k8s-deployment"}}
    assert (
        render_template("{{ .metadata.name | snakecase }}", manifest, {}) == "test_k_8s_deployment"
    )
    assert render_template("{{ .kind | kebabcase }}", manifest, {}) == "deployment"
    assert render_template("{{ print .kind .metadata.name | kebabcase }}", manifest, {}) == (
        "deploymenttest-k-8s-deployment"
    )


@pytest.mark.skipif(not helm_lib.available(), reason="Helm's library (helm-python-sdk) not loaded")
def test_snakecase_and_kebabcase_agree_with_sprig_in_helms_library() -> None:
    # Helm's library runs Go's own Sprig (and so xstrings) for a custom nameFormat: any string
    # from letters of each class, digits, connectors, symbols and U+FFFD must give its bytes.
    pick = random.Random(7)  # noqa: S311 - test data, not secrets
    runes = "aZ09_- \t/.<>%A\u0130\u00e9\u00c9\u4e2d\u01c5\u2160\ufffd\x1f\u3000\u00df"
    names = ["".join(pick.choices(runes, k=pick.randint(0, 9))) for _ in range(3000)]
    docs = [{"kind": "K", "metadata": {"name": name}} for name in names]
    for function, ours in (("snakecase", snakecase), ("kebabcase", kebabcase)):
        theirs = helm_lib.format_names(f"{{{{ .metadata.name | {function} }}}}", docs)
        assert [ours(name) for name in names] == theirs
