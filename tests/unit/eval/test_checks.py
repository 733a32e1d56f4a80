"""Each check kind against the shipped shop fixture rendered by the engine: holds, and fails with
the right index and reason."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.eval.checks import BaseRenders, Workspace, as_string, evaluate, same
from bot.eval.repos import changed_files, fresh_repo
from bot.eval.tasks import (
    AnswerMatches,
    Check,
    EnvCheck,
    FilesUnchanged,
    NoChanges,
    Unchanged,
)

SHOP = Path(__file__).parents[3] / "evals" / "fixtures" / "shop"
PROD = "environments/prod"
FRONTEND_IMAGE = "registry.example.com/shop/frontend:2.3.0"


class Shop:
    """A fresh checkout of the shop fixture and a pristine one for the base side."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "run"
        self.base = fresh_repo(SHOP, self.root)
        self.base_root = tmp / "base"
        assert fresh_repo(SHOP, self.base_root) == self.base  # same fixture, same commit
        self.renders = BaseRenders()

    def edit(self, rel: str, old: str, new: str) -> None:
        path = self.root / rel
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))

    def verdict(self, *checks: Check, answer: str = "") -> tuple[bool, int | None, str | None]:
        ws = Workspace(self.root, self.base_root, changed_files(self.root, self.base), self.renders)
        v = evaluate(checks, ws, answer)
        return v.passed, v.failed_check, v.reason


@pytest.fixture
def shop(tmp_path: Path) -> Shop:
    return Shop(tmp_path)


def env(
    path: str, kind: str | None = None, name: str | None = None, *keys: str, **want: Any
) -> EnvCheck:
    matches = want.pop("matches", None)
    return EnvCheck(
        env=path,
        kind=kind,
        name=name,
        path=keys,
        equals=want.get("equals"),
        has_equals="equals" in want,
        matches=re.compile(matches) if matches else None,
        absent=want.get("absent", False),
    )


def replicas(value: Any) -> EnvCheck:
    return env(PROD, "Deployment", "api", "spec", "replicas", equals=value)


def test_equals_holds_and_fails_with_the_value_seen(shop: Shop) -> None:
    assert shop.verdict(replicas(4)) == (True, None, None)

    assert shop.verdict(replicas(4), replicas(5)) == (
        False,
        1,
        "environments/prod Deployment/api spec.replicas is 4, expected 5",
    )


def test_equals_compares_as_yaml_means_it() -> None:
    assert same(5, 5.0)
    assert not same("5", 5)
    assert not same(True, 1)
    assert same({"a": [1, "x"]}, {"a": [1.0, "x"]})
    assert not same({"a": 1}, {"a": 1, "b": 2})
    assert same(None, None)


def test_list_items_by_index_and_matches_on_the_value_as_a_string(shop: Shop) -> None:
    container = ("spec", "template", "spec", "containers", "0")
    image = env(PROD, "Deployment", "frontend", *container, "image", matches=r":2\.3\.0$")
    ports = env(PROD, "Deployment", "api", *container, "ports", matches='"containerPort":9000')
    assert shop.verdict(image, ports) == (True, None, None)

    wrong = env(PROD, "Deployment", "frontend", *container, "image", matches=r":9\.9$")
    passed, index, reason = shop.verdict(image, wrong)
    assert (passed, index) == (False, 1)
    assert reason == (
        "environments/prod Deployment/frontend spec.template.spec.containers.0.image is "
        f"{FRONTEND_IMAGE!r}, which does not match ':9\\\\.9$'"
    )
    assert as_string([1.0, {"b": True, "c": 0.5}]) == '[1,{"b":true,"c":0.5}]'


def test_a_missing_path_or_object_fails_with_that_reason(shop: Shop) -> None:
    missing_key = env(PROD, "ConfigMap", "api-config", "data", "CACHE_TTL", equals="300")
    container = ("spec", "template", "spec", "containers", "3")  # an index past the end
    missing_index = env(PROD, "Deployment", "api", *container, matches=".")
    missing_object = env(PROD, "Deployment", "nope", "spec", equals=1)

    assert shop.verdict(missing_key)[2] == (
        "environments/prod ConfigMap/api-config data.CACHE_TTL is missing"
    )
    assert shop.verdict(missing_index)[1:] == (
        0,
        "environments/prod Deployment/api spec.template.spec.containers.3 is missing",
    )
    assert shop.verdict(missing_object)[2] == (
        "environments/prod: no Deployment/nope in the rendered output"
    )


def test_absent_holds_for_a_missing_object_path_or_environment(shop: Shop) -> None:
    checks = (
        env(PROD, "PodDisruptionBudget", "api", absent=True),
        env(PROD, "ConfigMap", "api-config", "data", "CACHE_TTL", absent=True),
        env("environments/qa", absent=True),
    )
    assert shop.verdict(*checks) == (True, None, None)

    present = env(PROD, "ConfigMap", "api-config", "data", "LOG_LEVEL", absent=True)
    assert shop.verdict(*checks, present)[1:] == (
        3,
        "environments/prod ConfigMap/api-config data.LOG_LEVEL is present: 'info'",
    )
    assert shop.verdict(env(PROD, absent=True))[1:] == (0, "environments/prod still exists")


def test_an_environment_that_does_not_render_fails_the_check_with_the_engine_error(
    shop: Shop,
) -> None:
    shop.edit(f"{PROD}/main.jsonnet", "api: 4,", "api: 4")

    passed, index, reason = shop.verdict(replicas(4))

    assert (passed, index) == (False, 0)
    assert reason is not None
    assert reason.startswith("environments/prod does not render: ")
    assert "environments/prod/main.jsonnet" in reason
    assert str(shop.root) not in reason  # paths relative to the checkout


def test_unchanged_compares_with_the_base_render(shop: Shop) -> None:
    unchanged = Unchanged(("environments/dev", "environments/postgres"))
    assert shop.verdict(unchanged) == (True, None, None)

    # A lib edit that reaches dev (and every other shop environment).
    shop.edit("lib/shop/shop.libsonnet", "worker:1.8.4", "worker:1.9.0")
    assert shop.verdict(Unchanged(("environments/postgres",))) == (True, None, None)
    assert shop.verdict(unchanged) == (False, 0, "environments/dev changed: Deployment/worker")


def test_unchanged_fails_when_the_environment_is_gone(shop: Shop) -> None:
    (shop.root / "environments/dev/main.jsonnet").unlink()

    passed, _, reason = shop.verdict(Unchanged(("environments/dev",)))

    assert not passed
    assert reason is not None
    assert reason.startswith("environments/dev does not render any more: ")


def test_files_unchanged_and_no_changes_see_edits_new_and_deleted_files(shop: Shop) -> None:
    guard = FilesUnchanged((".github/**", "vendor/**"))
    assert shop.verdict(guard, NoChanges()) == (True, None, None)

    (shop.root / "notes.txt").write_text("new\n")
    assert shop.verdict(guard, NoChanges()) == (False, 1, "the checkout changed: notes.txt")

    (shop.root / ".github/CODEOWNERS").unlink()
    shop.edit(".github/workflows/ci.yaml", "jb install", "true")
    assert shop.verdict(guard) == (
        False,
        0,
        "changed: .github/CODEOWNERS, .github/workflows/ci.yaml",
    )


def test_answer_matches_searches_the_final_answer(shop: Shop) -> None:
    check = AnswerMatches(re.compile(r"(?i)\bfour\b|\b4\b"))
    assert shop.verdict(check, answer="It runs Four replicas.") == (True, None, None)

    assert shop.verdict(NoChanges(), check, answer="It runs\n14 replicas.") == (
        False,
        1,
        "the answer does not match '(?i)\\\\bfour\\\\b|\\\\b4\\\\b': 'It runs 14 replicas.'",
    )


def test_only_the_first_failing_check_is_reported(shop: Shop) -> None:
    failing: list[Callable[[], Check]] = [
        lambda: replicas(9),
        lambda: AnswerMatches(re.compile("never")),
    ]
    passed, index, reason = shop.verdict(replicas(4), *(f() for f in failing))

    assert (passed, index) == (False, 1)
    assert reason is not None
    assert "expected 9" in reason
