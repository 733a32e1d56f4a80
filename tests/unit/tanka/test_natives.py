"""Tanka's native functions: Go semantics directly, and through Jsonnet with error texts kept."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.tanka.errors import JsonnetError, NativeError
from tools.tanka.evaluation.evaluate import evaluate_file
from tools.tanka.evaluation.pool import EvalPool
from tools.tanka.natives.exec import keyed_manifests
from tools.tanka.natives.functions import manifest_json_from_json, parse_json, sha256
from tools.tanka.natives.parse_yaml import parse_yaml
from tools.tanka.natives.regex import escape_string_regex, regex_match, regex_subst
from tools.tanka.natives.snakecase import snakecase

# Every test here runs on go-jsonnet and on jrsonnet (conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")


@pytest.fixture(scope="module")
def pool() -> Iterator[EvalPool]:
    pool = EvalPool(size=1)
    yield pool
    pool.close()


def test_parse_json_numbers_are_floats_and_errors_are_go_texts() -> None:
    assert parse_json('{"a": [1, 2.5]}') == {"a": [1.0, 2.5]}
    with pytest.raises(NativeError, match=r"^invalid character 'x' looking for beginning"):
        parse_json("x")


def test_parse_yaml_uses_yaml_v3_resolution() -> None:
    docs = parse_yaml("a: yes\nb: 0x10\nc: 010\nd: 2001-12-14\ne: 1_000\nf: ~\n---\n")
    assert docs == [
        {"a": "yes", "b": 16.0, "c": 8.0, "d": "2001-12-14T00:00:00Z", "e": 1000.0, "f": None},
        None,
    ]
    assert parse_yaml("") == []
    assert parse_yaml("base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n")[0]["m"] == {"x": 1.0, "y": 2.0}


def test_parse_yaml_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(NativeError, match="converting yaml to json: json: unsupported value"):
        parse_yaml("a: .inf")
    with pytest.raises(NativeError, match="unsupported type: map"):
        parse_yaml("1: a")
    with pytest.raises(NativeError, match=r"^parsing yaml: yaml: line"):
        parse_yaml("a: [")


def test_manifest_json_from_json_reindents_tokens_verbatim() -> None:
    assert manifest_json_from_json(' {"b":1.50,"a":[],"c":{"d":"x\\u0041"}} ', 2) == (
        '{\n  "b": 1.50,\n  "a": [],\n  "c": {\n    "d": "x\\u0041"\n  }\n}\n'
    )
    assert manifest_json_from_json("{}", 4) == "{}\n"


def test_escape_string_regex_quotes_exactly_go_metacharacters() -> None:
    assert escape_string_regex("a.b*c-d/e#f") == "a\\.b\\*c-d/e#f"


def test_regex_match_is_unanchored_and_refuses_perl_only_syntax() -> None:
    assert regex_match("b+", "abbc") is True
    assert regex_match("^x$", "x\n") is False  # Go's $ is end of text
    with pytest.raises(NativeError, match="invalid or unsupported Perl syntax"):
        regex_match("a(?=b)", "ab")
    with pytest.raises(NativeError, match="invalid escape sequence"):
        regex_match("(a)\\1", "aa")


def test_regex_subst_follows_go_templates_and_empty_match_rule() -> None:
    assert regex_subst("(a)(?P<n>b)", "xabx", "[$2${1}$n$$]") == "x[bab$]x"
    assert regex_subst("a(x*)", "ab", "$1x") == "b"  # `$1x` is the group named 1x: empty
    assert regex_subst("a*", "baaac", "-") == "-b-c-"  # Python's re.sub gives -b--c-


def test_sha256_is_hex_of_utf8() -> None:
    assert sha256("é") == hashlib.sha256("é".encode()).hexdigest()
    assert sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_keyed_manifests_default_name_format() -> None:
    stream = (
        "---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: my-app\n"
    )
    assert list(keyed_manifests(stream, "helmTemplate")) == ["config_map_my_app"]
    assert snakecase("HTTPServer_web-1") == "http_server_web_1"


def test_keyed_manifests_accept_what_tk_decodes() -> None:
    # tk's Manifest.Verify: a List needs no metadata, generateName stands in for name; Go's
    # print of the missing name is <nil>, which tk's default key then carries (snakecase sets
    # `<` and `>`, symbols rather than punctuation to Go, apart from the letters).
    stream = (
        "apiVersion: v1\nkind: List\nitems: []\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: job-\n"
    )
    out = keyed_manifests(stream, "helmTemplate", source="the output of `helm template a b`")
    assert sorted(out) == ["list_<_nil_>", "pod_<_nil_>"]
    bad = "apiVersion: v1\nkind: Pod\nmetadata:\n  labels: {a: 1}\n"
    with pytest.raises(NativeError) as caught:
        keyed_manifests(bad, "helmTemplate", source="the output of `helm template a b`")
    assert str(caught.value) == (
        "helmTemplate: the output of `helm template a b` has a document that is not a Kubernetes "
        "object (metadata.name: missing or not of string type; metadata.labels: contains "
        "non-string field 'a' of type 'float64')"
    )


def test_natives_through_jsonnet_keep_go_error_text(tmp_path: Path, pool: EvalPool) -> None:
    (tmp_path / "jsonnetfile.json").write_text("{}")
    main = tmp_path / "main.jsonnet"
    main.write_text(
        "local n = std.native;\n"
        "{ h: n('sha256')('tanka'), m: n('regexMatch')(regex='^t', string='tk'),\n"
        "  y: std.native('parseYaml')('a: 1'), e: std.native('escapeStringRegex')('a.b') }\n"
    )
    value = evaluate_file(main, pool=pool)
    assert value["m"] is True
    assert value["y"] == [{"a": 1.0}]
    assert value["e"] == "a\\.b"
    main.write_text("std.native('regexMatch')('(', 'x')\n")
    with pytest.raises(JsonnetError, match=r"RUNTIME ERROR: error parsing regexp: .*`\(`"):
        evaluate_file(main, pool=pool)


def test_helm_template_needs_called_from_and_reports_helm_errors(
    tmp_path: Path, pool: EvalPool
) -> None:
    (tmp_path / "jsonnetfile.json").write_text("{}")
    (tmp_path / "chart").mkdir()
    main = tmp_path / "main.jsonnet"
    main.write_text("std.native('helmTemplate')('x', './chart', {})\n")
    with pytest.raises(JsonnetError, match=r"'opts.calledFrom' is unset or empty"):
        evaluate_file(main, pool=pool)
    main.write_text("std.native('helmTemplate')('x', './chart', { calledFrom: std.thisFile })\n")
    # An empty directory is no chart: Helm's error, whichever of the library or binary renders.
    with pytest.raises(JsonnetError, match=r"helmTemplate: .*(Chart.yaml|not found on PATH)"):
        evaluate_file(main, pool=pool)
