"""The task loader: a valid file becomes a Task; every bad field names the file and the key."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from bot.cli import main
from bot.eval.tasks import (
    AnswerMatches,
    EnvCheck,
    FilesUnchanged,
    NoChanges,
    TaskFileError,
    Unchanged,
    load_suite,
    select,
)

VALID = """\
id: scale-prod
repo: fixture
prompt: set prod replicas of app to 5
reference: fix.patch
expect:
  - env: environments/prod
    kind: Deployment
    name: app
    path: spec.template.spec.containers.0.image
    equals: 5
  - env: environments/prod
    kind: ConfigMap
    name: app
    path: data.config\\.yaml
    matches: "replicas: 5"
  - env: environments/old
    absent: true
  - unchanged: [environments/dev]
  - files_unchanged: [".github/**"]
  - no_changes: true
  - answer_matches: "(?i)five|5"
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "fixture").mkdir()
    (tmp_path / "fix.patch").write_text("")
    return tmp_path


def write(suite: Path, text: str, name: str = "task.yaml") -> Path:
    path = suite / name
    path.write_text(textwrap.dedent(text))
    return path


def problems(suite: Path) -> list[str]:
    with pytest.raises(TaskFileError) as caught:
        load_suite(suite)
    assert caught.value.exit_code == 2
    return caught.value.problems


def test_a_valid_task_loads_with_every_check_kind(suite: Path) -> None:
    write(suite, VALID)

    [task] = load_suite(suite)

    assert (task.id, task.prompt) == ("scale-prod", "set prod replicas of app to 5")
    assert task.repo == (suite / "fixture").resolve()
    assert task.reference == (suite / "fix.patch").resolve()
    env, config, gone, unchanged, files, nothing, answer = task.expect
    assert isinstance(env, EnvCheck)
    assert env.path == ("spec", "template", "spec", "containers", "0", "image")
    assert (env.equals, env.has_equals, env.absent) == (5, True, False)
    assert isinstance(config, EnvCheck)
    assert config.path == ("data", "config.yaml")  # `\.` is a dot inside a key
    assert config.matches is not None
    assert config.matches.pattern == "replicas: 5"
    assert isinstance(gone, EnvCheck)
    assert (gone.kind, gone.absent) == (None, True)
    assert unchanged == Unchanged(("environments/dev",))
    assert files == FilesUnchanged((".github/**",))
    assert nothing == NoChanges()
    assert isinstance(answer, AnswerMatches)
    assert answer.pattern.search("FIVE")


def test_tasks_load_sorted_by_file_name(suite: Path) -> None:
    write(suite, VALID.replace("scale-prod", "b-task"), "b.yaml")
    write(suite, VALID.replace("scale-prod", "a-task"), "a.yaml")
    write(suite, "not a task", "notes.txt")

    assert [t.id for t in load_suite(suite)] == ["a-task", "b-task"]


@pytest.mark.parametrize(
    ("change", "key", "message"),
    [
        (("id: scale-prod", "id: Scale_Prod"), "id", "must match [a-z0-9-]+"),
        (("id: scale-prod\n", ""), "id", "missing"),
        (("prompt: set prod replicas of app to 5", "prompt: ''"), "prompt", "non-empty string"),
        (("repo: fixture", "repo: nowhere"), "repo", "'nowhere': no such folder"),
        (("reference: fix.patch", "reference: none.patch"), "reference", "no such file"),
        (("expect:", "expected:"), "expected", "unknown key"),
        (("    equals: 5\n", ""), "expect[0]", "exactly one of equals, matches or absent"),
        (("    equals: 5", "    equals: 5\n    absent: true"), "expect[0]", "exactly one of"),
        (("    kind: Deployment\n", ""), "expect[0].kind", "kind and name select an object"),
        (("    name: app\n", ""), "expect[0].name", "kind and name select an object"),
        (("    equals: 5", "    equals: 5\n    value: 5"), "expect[0].value", "unknown key"),
        (("env: environments/prod\n    kind: D", "env: /etc\n    kind: D"), "expect[0].env", ""),
        (('matches: "replicas: 5"', 'matches: "(unclosed"'), "expect[1].matches", "invalid"),
        (("path: data.config\\.yaml", "path: data..x"), "expect[1].path", "has an empty part"),
        (("    absent: true", "    equals: 1"), "expect[2]", "without kind and name only"),
        (("unchanged: [environments/dev]", "unchanged: []"), "expect[3].unchanged", "non-empty"),
        (("unchanged: [environments/dev]", "unchanged: [../x]"), "expect[3].unchanged", "relative"),
        (('[".github/**"]', "3"), "expect[4].files_unchanged", "list of strings"),
        (("no_changes: true", "no_changes: false"), "expect[5].no_changes", "must be true"),
        (('answer_matches: "(?i)five|5"', "answer_matches: '['"), "expect[6].answer_matches", ""),
        (('  - answer_matches: "(?i)five|5"', "  - answers: x"), "expect[6]", "unknown check"),
        (('  - answer_matches: "(?i)five|5"', "  - 3"), "expect[6]", "a check is a mapping"),
    ],
)
def test_each_bad_field_is_named_with_its_file_and_key(
    suite: Path, change: tuple[str, str], key: str, message: str
) -> None:
    old, new = change
    assert old in VALID
    path = write(suite, VALID.replace(old, new, 1))

    found = problems(suite)

    assert all(p.startswith(f"{path}: ") for p in found), found
    named = [p for p in found if p.startswith(f"{path}: {key}: ")]
    assert len(named) == 1, found
    assert message in named[0]


def test_every_problem_of_every_file_is_reported_at_once(suite: Path) -> None:
    one = write(suite, "id: a\nrepo: fixture\nprompt: p\nexpect: []\n", "a.yaml")
    two = write(suite, "- not a mapping\n", "b.yaml")
    three = write(suite, "id: [unclosed\n", "c.yaml")
    four = write(suite, "id: a\nrepo: fixture\nprompt: p\nexpect: [{no_changes: true}]\n", "d.yaml")
    five = write(suite, "id: a\nrepo: fixture\nprompt: p\nexpect: [{no_changes: true}]\n", "e.yaml")

    found = problems(suite)

    assert found[0] == f"{one}: expect: must be a non-empty list of checks"
    assert found[1] == f"{two}: a task is a mapping with id, repo, prompt and expect"
    assert found[2].startswith(f"{three}: not valid YAML: ")
    assert found[3] == f"{five}: id: 'a' is already the id of {four.name}"
    assert len(found) == 4


def test_an_empty_or_missing_suite_is_an_error(tmp_path: Path) -> None:
    assert problems(tmp_path) == [f"{tmp_path}: no *.yaml task files"]
    assert problems(tmp_path / "none") == [
        f"{tmp_path / 'none'}: no such directory; pass --tasks DIR with task files"
    ]


def test_only_selects_known_ids_in_suite_order(suite: Path) -> None:
    for name in ("a", "b", "c"):
        write(suite, VALID.replace("scale-prod", name), f"{name}.yaml")
    tasks = load_suite(suite)

    assert [t.id for t in select(tasks, ["c", "a"])] == ["a", "c"]
    assert [t.id for t in select(tasks, [])] == ["a", "b", "c"]
    unknown = re.escape("--only zz: no task has this id; known: a, b")
    with pytest.raises(TaskFileError, match=unknown):
        select(tasks, ["zz"])


def test_the_cli_exits_2_with_the_file_and_key(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(suite, VALID.replace("no_changes: true", "no_changes: yes please"))

    code = main(["eval", "--tasks", str(suite), "--check-tasks"])

    assert code == 2
    err = capsys.readouterr().err
    assert err == f"tanka-bot: error: broken task: {path}: expect[5].no_changes: must be true\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--repeat", "0"], "--repeat 0: give 1 or more runs per task"),
        (["--jobs", "0"], "--jobs 0: give 1 or more"),
        (["--only", "nope"], "--only nope: no task has this id"),
    ],
)
def test_bad_options_exit_2(
    suite: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    write(suite, VALID)

    assert main(["eval", "--tasks", str(suite), "--check-tasks", *argv]) == 2
    assert message in capsys.readouterr().err
