"""`--check-tasks`: the shipped suite is sound, and each kind of unsound task is reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.cli import main
from bot.eval.command import DEFAULT_TASKS
from bot.eval.selfcheck import check_tasks
from bot.eval.tasks import NoChanges, load_suite

SHOP = DEFAULT_TASKS / "fixtures" / "shop"


def test_the_shipped_suite_fails_on_its_base_and_passes_with_its_references(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["eval", "--check-tasks", "--json", "--jobs", "2"])

    out, err = capsys.readouterr()
    report = json.loads(out)
    assert [t for t in report["tasks"] if t["problems"]] == []
    assert code == 0
    assert report["passed"] == report["total"] >= 15
    assert err.count("ok   ") == report["total"]


def test_every_shipped_task_that_edits_has_a_reference_and_a_blast_radius_guard() -> None:
    for task in load_suite(DEFAULT_TASKS):
        if any(isinstance(c, NoChanges) for c in task.expect):
            assert task.reference is None, task.id
            assert task.reference_answer, task.id
        else:
            assert task.reference is not None, task.id
            kinds = {type(c).__name__ for c in task.expect}
            assert kinds & {"Unchanged", "FilesUnchanged"}, task.id


def write_task(folder: Path, name: str, body: str, patch: str | None = None) -> None:
    reference = ""
    if patch is not None:
        (folder / f"{name}.patch").write_text(patch)
        reference = f"reference: {name}.patch\n"
    (folder / f"{name}.yaml").write_text(
        f"id: {name}\nrepo: {SHOP}\nprompt: p\n{reference}expect:\n{body}"
    )


REPLICAS = """\
  - env: environments/prod
    kind: Deployment
    name: api
    path: spec.replicas
    equals: {n}
"""
SCALE_PATCH = (DEFAULT_TASKS / "solutions" / "scale-prod-api.patch").read_text()


def test_unsound_tasks_are_reported_with_the_reason(tmp_path: Path) -> None:
    write_task(tmp_path, "a-cannot-fail", REPLICAS.format(n=4))
    write_task(tmp_path, "b-wrong-reference", REPLICAS.format(n=7), SCALE_PATCH)
    write_task(tmp_path, "c-patch-does-not-apply", REPLICAS.format(n=6), "not a patch\n")
    write_task(tmp_path, "d-sound", REPLICAS.format(n=6), SCALE_PATCH)
    write_task(tmp_path, "e-no-reference", "  - answer_matches: five\n")

    results = check_tasks(load_suite(tmp_path))

    problems = {r.task_id: r.problems for r in results}
    assert problems["a-cannot-fail"] == (
        "passes on its base commit: no check can tell it was solved",
    )
    assert problems["b-wrong-reference"] == (
        "fails with its reference: check 0 (env environments/prod Deployment/api spec.replicas):"
        " environments/prod Deployment/api spec.replicas is 6, expected 7",
    )
    [bad_patch] = problems["c-patch-does-not-apply"]
    assert bad_patch.startswith("its reference patch does not apply: ")
    assert problems["d-sound"] == ()
    assert problems["e-no-reference"] == ()  # only the base side can be checked


def test_the_cli_exits_1_and_lists_the_unsound_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_task(tmp_path, "a-cannot-fail", REPLICAS.format(n=4))
    write_task(tmp_path, "d-sound", REPLICAS.format(n=6), SCALE_PATCH)
    report = tmp_path / "out" / "check.md"
    report.parent.mkdir()

    code = main(["eval", "--tasks", str(tmp_path), "--check-tasks", "--report", str(report)])

    assert code == 1
    assert capsys.readouterr().out == f"1/2 tasks sound; report written to {report}\n"
    assert report.read_text() == (
        "1 of 2 tasks have unsound checkers:\n"
        "- a-cannot-fail: passes on its base commit: no check can tell it was solved\n"
    )
    shutil.rmtree(report.parent)
