"""Rego policies through rego-cpp: conftest's rules, the environment as data, broken policies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tools.tanka.check.errors import CheckSetupError, PolicyError
from tools.tanka.check.findings import Level
from tools.tanka.check.policy import PolicySet, RuleResult, rule_results
from tools.tanka.check.rego import Module

ENV = {"metadata": {"name": "environments/prod"}, "spec": {"namespace": "prod"}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}


def evaluate(source: str, obj: dict[str, Any] | None = None, *more: str) -> list[RuleResult]:
    modules = [Module(f"policy/p{i}.rego", s) for i, s in enumerate((source, *more))]
    compiled = PolicySet(modules).compile(ENV, "environments/prod")
    assert compiled is not None
    target = obj or DEPLOYMENT
    return rule_results(compiled.evaluate(target), str(target["kind"]))


def test_deny_violation_and_warn_with_conftest_suffixes() -> None:
    results = evaluate(
        """package main
deny contains "d" if input.kind == "Deployment"
deny_no_probe contains sprintf("%s has no probe", [input.metadata.name]) if true
violation contains {"msg": "structured", "details": {"x": 1}} if true
warn contains "w" if true
helper contains "not a rule" if true
"""
    )
    assert results == [
        RuleResult("main.deny", Level.ERROR, "d"),
        RuleResult("main.deny_no_probe", Level.ERROR, "web has no probe"),
        RuleResult("main.violation", Level.ERROR, "structured"),
        RuleResult("main.warn", Level.WARNING, "w"),
    ]


def test_kind_packages_apply_to_their_kind_only() -> None:
    source = 'package main.deployment\ndeny contains "deployments only" if true\n'
    assert evaluate(source) == [RuleResult("main.deployment.deny", Level.ERROR, "deployments only")]
    assert evaluate(source, {"apiVersion": "v1", "kind": "Service"}) == []


def test_the_environment_is_data_and_input_is_the_object() -> None:
    source = """package main
deny contains msg if {
    data.tanka.environment.spec.namespace == "prod"
    env := data.tanka.environment
    args := [input.metadata.name, env.metadata.name, data.tanka.path, input.spec.replicas]
    msg := sprintf("%s in %s (%s) has %d replica", args)
}
"""
    # A Jsonnet number arrives as 1.0: rules still read it as the integer the YAML shows.
    obj = {**DEPLOYMENT, "spec": {"replicas": 1.0}}
    assert evaluate(source, obj) == [
        RuleResult(
            "main.deny", Level.ERROR, "web in environments/prod (environments/prod) has 1 replica"
        )
    ]


def test_pre_1_0_partial_set_rules_and_boolean_rules() -> None:
    assert evaluate('package main\ndeny[msg] {\n  msg := "old style"\n}\n') == [
        RuleResult("main.deny", Level.ERROR, "old style")
    ]
    assert evaluate("package main\nwarn if true\n") == [
        RuleResult("main.warn", Level.WARNING, "rule warn is true")
    ]


def test_a_parse_error_names_file_line_and_column() -> None:
    with pytest.raises(PolicyError) as caught:
        PolicySet(
            [
                Module("policy/ok.rego", "package main\n"),
                Module(
                    "policy/bad.rego",
                    "package main\n\ndeny contains msg if {\n  input.kind ==\n}\n",
                ),
            ]
        )
    assert str(caught.value) == (
        "policy/bad.rego:4:14: Invalid boolean operator; fix the policy (Rego v1 syntax, as "
        "OPA 1.0 and conftest use)"
    )


def test_a_compile_error_names_the_file() -> None:
    mixed = 'package main\n\ndeny[msg] { msg := "a" }\ndeny contains "b" if true\n'
    with pytest.raises(PolicyError, match=r"^policy/p1.rego: does not compile"):
        evaluate("package main\n", None, mixed)


def test_files_that_only_conflict_together_are_named_together() -> None:
    with pytest.raises(PolicyError, match=r"^policy/p0.rego, policy/p1.rego: compile on their own"):
        evaluate(
            'package main\ndeny[msg] { msg := "a" }\n',
            None,
            'package main\ndeny contains "b" if true\n',
        )


def test_an_evaluation_error_never_dumps_the_input() -> None:
    secret = {"apiVersion": "v1", "kind": "Secret", "data": {"password": "aHVudGVyMg=="}}
    with pytest.raises(PolicyError) as caught:
        evaluate("package main\ndeny contains msg if { msg := no_such_function(1) }\n", secret)
    assert str(caught.value) == (
        "a policy failed while evaluating: Function not found: no_such_function; fix the policy"
    )


def test_loading_a_folder(tmp_path: Path) -> None:
    (tmp_path / "policy" / "nested").mkdir(parents=True)
    (tmp_path / "policy" / "nested" / "a.rego").write_text(
        'package main\ndeny contains "a" if true\n'
    )
    (tmp_path / "policy" / "a_test.rego").write_text("this is not even Rego")
    (tmp_path / "policy" / "README.md").write_text("# policies\n")
    assert PolicySet.load(tmp_path, "policy").files == ["policy/nested/a.rego"]
    assert PolicySet.load(tmp_path, "absent").files == []
    (tmp_path / "file").write_text("")
    with pytest.raises(CheckSetupError, match=r"^TANKA_BOT_POLICY_DIR=file: .* is a file"):
        PolicySet.load(tmp_path, "file")
    (tmp_path / "policy" / "latin1.rego").write_bytes(b"package main # \xe9\n")
    with pytest.raises(PolicyError, match=r"^policy/latin1.rego: cannot be read"):
        PolicySet.load(tmp_path, "policy")


def test_policies_outside_package_main_are_a_broken_setup_not_a_pass() -> None:
    # conftest evaluates `main` unless told otherwise; so does tk check. Policies written for
    # another namespace would check nothing: that must stop the check, naming what it looked for.
    modules = [
        Module("policy/a.rego", 'package k8s.deny\ndeny contains "a" if true\n'),
        Module("policy/b.rego", "# helpers\npackage lib\n\nallowed := {1}\n"),
    ]
    with pytest.raises(PolicyError) as caught:
        PolicySet(modules)
    assert str(caught.value) == (
        "policy/a.rego (package k8s.deny), policy/b.rego (package lib): no policy is in package "
        "main or main.<kind>, the namespace tk check evaluates (as conftest does by default), "
        "so nothing would be checked; declare `package main` in the policy files"
    )


def test_policies_of_package_main_without_conftest_rules_are_a_broken_setup() -> None:
    modules = [
        Module("policy/a.rego", 'package main\n\nforbid contains "a" if true\n'),
        Module(
            "policy/b.rego",
            'package main.deployment\n\n# deny is only a comment here\nx := "deny"\n',
        ),
        Module("policy/c.rego", 'package other\n\ndeny contains "c" if true\n'),
    ]
    with pytest.raises(PolicyError) as caught:
        PolicySet(modules)
    assert str(caught.value) == (
        "policy/a.rego, policy/b.rego: package main (and main.<kind>) has no rule named deny, "
        "violation or warn (or deny_<name>, violation_<name>, warn_<name>), so nothing would be "
        "checked; name the rules as conftest does"
    )


@pytest.mark.parametrize(
    "source",
    [
        'package main\ndeny contains "a" if true\n',
        'package main\ndeny[msg] {\n  msg := "a"\n}\n',
        "package main\nwarn if true\n",
        'package main.deployment\n\nviolation_replicas contains {"msg": "a"} if true\n',
        "package main\n\nimport rego.v1\n\ndefault deny := false\n",
        '# a "comment" {\npackage   main # trailing\n\n  deny_x := "a"\n',
        'package main\n\ndeny := [m | some m in ["a"]]\n',
    ],
)
def test_every_conftest_rule_form_counts(source: str) -> None:
    assert PolicySet([Module("policy/p.rego", source)]).files == ["policy/p.rego"]


def test_rule_names_inside_bodies_strings_and_comments_do_not_count() -> None:
    source = (
        "package main\n\n"
        "helper contains x if {\n  deny := 1\n  x := deny\n}\n"
        '# deny contains "a" if true\n'
        'note := `\ndeny contains "b" if true\n`\n'
    )
    with pytest.raises(PolicyError, match="has no rule named deny"):
        PolicySet([Module("policy/p.rego", source)])
