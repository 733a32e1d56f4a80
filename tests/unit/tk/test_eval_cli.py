"""`tanka-bot tk eval` and the loading errors of show/export, on tk's own cases.

Expected values come from grafana/tanka pkg/tanka/evaluators_test.go and load_test.go at commit
9cbf25174556cdd5c1471ee2bd15463a5576fef2; the fixtures (tests/fixtures/tanka_cases) are written
here to define the same environments.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from tools.tanka.errors import MultipleEnvsError
from tools.tanka.pipeline.render import show

# tk's cases run on go-jsonnet and on jrsonnet (tests/unit/tanka/conftest.py).
pytestmark = pytest.mark.usefixtures("evaluator")

CASES = Path(__file__).parents[2] / "fixtures" / "tanka_cases"


@pytest.fixture(autouse=True)
def _in_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES)


def tk(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tk", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # TestEvalJsonnet: TLAs forwarded by name, whatever their order.
        (("withtlas", "--tla-code", "foo='data'", "-A", "bar=kaboom", "-A", "baz=x"), "foovalue"),
        (("withtlas", "-e", "*1", "--tla-code", "foo='data'", "-A", "bar=k", "-A", "baz=k"), ""),
        # TestEvalJsonnetWithExpression
        (("object", "-e", '["testCase"]'), "object"),
        (("object", "-e", "testCase"), "object"),
        # TestEvalWithOptionalTlas, ...SpecifiedArg2, TestEvalFunctionWithNoTlas
        (("with-optional-tlas", "-e", "metadata.name"), "bar-baz"),
        (("with-optional-tlas", "-e", "metadata.name", "-A", "baz=changed"), "bar-changed"),
        (("function-with-zero-params", "-e", "metadata.name"), "inline"),
        # TestTlaWithNonFunction
        (("withenv", "-e", "metadata.name", "--tla-str", "foo=bar"), "withenv"),
    ],
)
def test_eval_cases(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], expected: str
) -> None:
    code, out, err = tk(capsys, "eval", *args)
    if not expected:  # an expression that is not valid Jsonnet: go-jsonnet's error, exit 1
        assert code == 1
        assert "evaluating jsonnet in path" in err
        return
    assert (code, out) == (0, f'"{expected}"\n'), err


def test_invalid_tla_names_the_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = tk(capsys, "eval", "function-with-zero-params", "-e", "kind", "-A", "foo=bar")
    assert code == 1
    assert "function has no parameter foo" in err


def test_eval_prints_go_marshal_indent_with_tk_env(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = tk(capsys, "eval", "static")
    assert code == 0
    assert out == (
        "{\n"
        '  "big": 1e+21,\n'
        '  "empty": {},\n'
        '  "env": {\n'
        '    "apiVersion": "tanka.dev/v1alpha1",\n'
        '    "kind": "Environment",\n'
        '    "metadata": {\n'
        '      "name": "static",\n'
        '      "namespace": "static/main.jsonnet"\n'
        "    },\n"
        '    "spec": {\n'
        '      "apiServer": "https://127.0.0.1:6443",\n'
        '      "expectVersions": {},\n'
        '      "namespace": "static",\n'
        '      "resourceDefaults": {}\n'
        "    }\n"
        "  },\n"
        '  "html": "\\u003ca\\u0026b\\u003e",\n'
        '  "list": [],\n'
        '  "small": 1e-7\n'
        "}\n"
    )


def test_ext_flags_reach_the_evaluation(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "v.txt").write_text("from file")
    args = ["--ext-str", "a=<s>", "--ext-code", "b={x: 1}", "--ext-str-file", f"c={tmp_path}/v.txt"]
    code, out, err = tk(capsys, "eval", "object", "-e", "testCase", *args)
    assert (code, out) == (0, '"object"\n'), err
    code, _, err = tk(capsys, "eval", "object", "--ext-code", "novalue")
    assert code == 1
    assert "ext-code argument has wrong format: `novalue`. Expected `key=<code>`" in err


def test_static_and_inline_together_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = tk(capsys, "show", "static-and-inline")
    assert code == 1
    assert (
        "found a tanka Environment resource. Check that you aren't using a spec.json and "
        "inline environments simultaneously"
    ) in err


def test_multiple_inline_envs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(MultipleEnvsError) as raised:
        show("multiple-inline-envs")
    assert str(raised.value) == (
        'found multiple Environments in "multiple-inline-envs". Use `--name` to select a single '
        "one: \n - project1-env1\n - project1-env2\n - project2-env1"
    )
    code, _, err = tk(capsys, "show", "multiple-inline-envs")
    assert code == 1
    assert "Use `--name` to select a single one: - project1-env1 - project1-env2" in err
    code, _, err = tk(capsys, "show", "multiple-inline-envs", "--name", "project1")
    assert 'matching "project1". Provide a more specific name' in err
    code, out, _ = tk(capsys, "show", "multiple-inline-envs", "--name", "project2")
    assert code == 0
    assert "namespace: project2-env1" in out


def test_no_environment(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = tk(capsys, "show", "no-envs")
    assert code == 1
    assert (
        "found no matching environments; run `tanka-bot tk env list no-envs` to view available"
        in err
    )


def test_expect_versions(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = tk(capsys, "show", "expect-versions")
    assert code == 1
    assert (
        "current version '0.38.0' does not satisfy the version required by the environment: "
        "'>= 0.99'. You likely need to use another version of Tanka"
    ) in err


def test_env_list_selector_and_names(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = tk(capsys, "env", "list", "--names", "-l", "!nolabel", "multiple-inline-envs")
    assert code == 0
    assert out == "project1-env1\nproject1-env2\nproject2-env1\n"
    code, out, _ = tk(capsys, "env", "list", "--names", "-l", "team=x", "multiple-inline-envs")
    assert (code, out) == (0, "")
