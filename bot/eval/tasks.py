"""Evaluation tasks: one YAML file each (CONTRACT.md, "Evaluations"), loaded and validated strictly.

    id: scale-prod                        # [a-z0-9-]+, unique in the suite
    repo: fixtures/basic                  # folder, relative to the task file
    prompt: set prod replicas of app to 5
    reference: solutions/scale-prod.patch # optional git patch that solves the task
    reference_answer: Done, 5 replicas.   # optional: the answer --check-tasks scores with it
    expect: [...]                         # checks, all must hold, in this order

Every problem of every file is collected and reported at once, each naming the file and the key
(`evals/scale.yaml: expect[1].equals: ...`), as one TaskFileError (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from bot.errors import EXIT_CONFIG, UserError

ID = re.compile(r"^[a-z0-9-]+$")
_TOP_KEYS = {"id", "repo", "prompt", "reference", "reference_answer", "expect"}
_ENV_KEYS = {"env", "kind", "name", "path", "equals", "matches", "absent"}
_ASSERTIONS = ("equals", "matches", "absent")


class TaskFileError(UserError):
    """A task file (or the suite) that cannot be run; lists every problem."""

    exit_code = EXIT_CONFIG

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        if len(problems) == 1:
            super().__init__(f"broken task: {problems[0]}")
        else:
            lines = "\n".join(f"  - {p}" for p in problems)
            super().__init__(f"{len(problems)} problems in the tasks:\n{lines}")


@dataclass(frozen=True, slots=True)
class EnvCheck:
    """A value in an environment's rendered objects (or the environment's absence)."""

    env: str  # environment path relative to the repository
    kind: str | None = None  # with `name`, selects one object; both None: the environment
    name: str | None = None
    path: tuple[str, ...] = ()  # keys and list indexes into the object; () is the object itself
    equals: Any = None
    matches: re.Pattern[str] | None = None
    absent: bool = False
    has_equals: bool = False  # `equals: null` is a real expectation, so presence is kept apart

    def describe(self) -> str:
        target = self.env if self.kind is None else f"{self.env} {self.kind}/{self.name}"
        return f"{target} {'.'.join(self.path)}".rstrip()


@dataclass(frozen=True, slots=True)
class Unchanged:
    envs: tuple[str, ...]  # rendered output identical to the base commit's


@dataclass(frozen=True, slots=True)
class FilesUnchanged:
    globs: tuple[str, ...]  # no file matching them differs from the base commit


@dataclass(frozen=True, slots=True)
class NoChanges:
    """The checkout is exactly the base commit."""


@dataclass(frozen=True, slots=True)
class AnswerMatches:
    pattern: re.Pattern[str]


Check = EnvCheck | Unchanged | FilesUnchanged | NoChanges | AnswerMatches


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    file: Path
    repo: Path  # the fixture folder, absolute
    prompt: str
    expect: tuple[Check, ...]
    reference: Path | None = None
    reference_answer: str = ""


def load_suite(directory: Path) -> list[Task]:
    """Every `*.yaml` task in `directory`, sorted by file name; TaskFileError on any problem."""
    if not directory.is_dir():
        raise TaskFileError([f"{directory}: no such directory; pass --tasks DIR with task files"])
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise TaskFileError([f"{directory}: no *.yaml task files"])
    problems: list[str] = []
    tasks: list[Task] = []
    seen: dict[str, Path] = {}
    for file in files:
        task = _load(file, problems)
        if task is None:
            continue
        if task.id in seen:
            problems.append(f"{file}: id: {task.id!r} is already the id of {seen[task.id].name}")
            continue
        seen[task.id] = file
        tasks.append(task)
    if problems:
        raise TaskFileError(problems)
    return tasks


def select(tasks: Sequence[Task], only: Sequence[str]) -> list[Task]:
    """The tasks named in `only` (all when empty), in suite order; TaskFileError for unknown ids."""
    if not only:
        return list(tasks)
    known = {t.id for t in tasks}
    unknown = [i for i in only if i not in known]
    if unknown:
        raise TaskFileError(
            [f"--only {i}: no task has this id; known: {', '.join(sorted(known))}" for i in unknown]
        )
    wanted = set(only)
    return [t for t in tasks if t.id in wanted]


class _Problems:
    """Collects one file's problems, each prefixed with the file and the key."""

    def __init__(self, file: Path, out: list[str]) -> None:
        self.file = file
        self.out = out
        self.count = 0

    def add(self, key: str, message: str) -> None:
        self.out.append(f"{self.file}: {key}: {message}")
        self.count += 1


def _load(file: Path, out: list[str]) -> Task | None:
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        out.append(f"{file}: cannot be read: {exc}")
        return None
    except yaml.YAMLError as exc:
        out.append(f"{file}: not valid YAML: {' '.join(str(exc).split())}")
        return None
    if not isinstance(data, Mapping):
        out.append(f"{file}: a task is a mapping with id, repo, prompt and expect")
        return None
    problems = _Problems(file, out)
    for key in sorted(set(data) - _TOP_KEYS, key=str):
        problems.add(str(key), f"unknown key; a task has {', '.join(sorted(_TOP_KEYS))}")
    task_id = _string(data, "id", problems)
    if task_id is not None and not ID.match(task_id):
        problems.add("id", f"{task_id!r} must match [a-z0-9-]+")
    prompt = _string(data, "prompt", problems)
    repo = _folder(file, data, problems)
    reference = _reference(file, data, problems)
    answer = data.get("reference_answer", "")
    if not isinstance(answer, str):
        problems.add("reference_answer", "must be a string")
    expect = _expect(data.get("expect"), problems)
    if problems.count or task_id is None or prompt is None or repo is None:
        return None
    return Task(task_id, file, repo, prompt, expect, reference, str(answer))


def _string(data: Mapping[str, Any], key: str, problems: _Problems) -> str | None:
    value = data.get(key)
    if value is None:
        problems.add(key, "missing")
        return None
    if not isinstance(value, str) or not value.strip():
        problems.add(key, "must be a non-empty string")
        return None
    return value


def _relative(value: str) -> bool:
    path = PurePosixPath(value)
    return not path.is_absolute() and ".." not in path.parts and "\\" not in value


def _folder(file: Path, data: Mapping[str, Any], problems: _Problems) -> Path | None:
    value = _string(data, "repo", problems)
    if value is None:
        return None
    folder = (file.parent / value).resolve()
    if not folder.is_dir():
        problems.add("repo", f"{value!r}: no such folder next to the task file")
        return None
    return folder


def _reference(file: Path, data: Mapping[str, Any], problems: _Problems) -> Path | None:
    if "reference" not in data:
        return None
    value = _string(data, "reference", problems)
    if value is None:
        return None
    patch = (file.parent / value).resolve()
    if not patch.is_file():
        problems.add("reference", f"{value!r}: no such file next to the task file")
        return None
    return patch


def _expect(value: Any, problems: _Problems) -> tuple[Check, ...]:
    if value is None:
        problems.add("expect", "missing; list the checks that must hold")
        return ()
    if not isinstance(value, list) or not value:
        problems.add("expect", "must be a non-empty list of checks")
        return ()
    checks: list[Check] = []
    for index, item in enumerate(value):
        check = _check(item, f"expect[{index}]", problems)
        if check is not None:
            checks.append(check)
    return tuple(checks)


def _check(item: Any, key: str, problems: _Problems) -> Check | None:  # noqa: PLR0911 - one early return per kind reads best
    kinds = "env, unchanged, files_unchanged, no_changes or answer_matches"
    if not isinstance(item, Mapping):
        problems.add(key, f"a check is a mapping with one of {kinds}")
        return None
    if "env" in item:
        return _env_check(item, key, problems)
    if len(item) != 1:
        problems.add(key, f"a check has exactly one of {kinds} (got {', '.join(map(str, item))})")
        return None
    [(name, arg)] = item.items()
    where = f"{key}.{name}"
    if name in ("unchanged", "files_unchanged"):
        return _list_check(name, arg, where, problems)
    if name == "no_changes":
        if arg is not True:
            problems.add(where, "must be true")
            return None
        return NoChanges()
    if name == "answer_matches":
        pattern = _regex(arg, where, problems)
        return AnswerMatches(pattern) if pattern is not None else None
    problems.add(key, f"unknown check {name!r}; a check has one of {kinds}")
    return None


def _list_check(name: str, arg: Any, key: str, problems: _Problems) -> Check | None:
    entries = _string_list(arg, key, problems, envs=name == "unchanged")
    if entries is None:
        return None
    return Unchanged(entries) if name == "unchanged" else FilesUnchanged(entries)


def _string_list(
    value: Any, key: str, problems: _Problems, *, envs: bool
) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not value:
        problems.add(key, "must be a non-empty list of strings")
        return None
    if not all(isinstance(v, str) and v.strip() for v in value):
        problems.add(key, "must be a non-empty list of strings")
        return None
    if envs:
        for v in value:
            if not _relative(v):
                problems.add(key, f"{v!r}: an environment path relative to the repository")
                return None
    return tuple(value)


def _regex(value: Any, key: str, problems: _Problems) -> re.Pattern[str] | None:
    if not isinstance(value, str) or not value:
        problems.add(key, "must be a non-empty regular expression")
        return None
    try:
        return re.compile(value)
    except re.error as exc:
        problems.add(key, f"invalid regular expression: {exc}")
        return None


def _env_check(item: Mapping[str, Any], key: str, problems: _Problems) -> EnvCheck | None:
    before = problems.count
    for extra in sorted(set(item) - _ENV_KEYS, key=str):
        keys = ", ".join(sorted(_ENV_KEYS))
        problems.add(f"{key}.{extra}", f"unknown key; an env check has {keys}")
    env = item["env"]
    if not isinstance(env, str) or not env.strip() or not _relative(env):
        problems.add(f"{key}.env", "must be an environment path relative to the repository")
    kind, name = item.get("kind"), item.get("name")
    for field_name, field_value in (("kind", kind), ("name", name)):
        if field_value is not None and (not isinstance(field_value, str) or not field_value):
            problems.add(f"{key}.{field_name}", "must be a non-empty string")
    if (kind is None) != (name is None):
        missing = "name" if name is None else "kind"
        problems.add(f"{key}.{missing}", "missing; kind and name select an object together")
    given = [a for a in _ASSERTIONS if a in item]
    if len(given) != 1:
        problems.add(key, "needs exactly one of equals, matches or absent")
    path = _path(item.get("path"), f"{key}.path", problems)
    if "absent" in item and item["absent"] is not True:
        problems.add(f"{key}.absent", "must be true (use equals or matches otherwise)")
    pattern = _regex(item["matches"], f"{key}.matches", problems) if "matches" in item else None
    whole_env = kind is None and name is None
    if whole_env and given and given != ["absent"]:
        problems.add(key, "without kind and name only `absent: true` (the environment is gone)")
    if whole_env and path:
        problems.add(f"{key}.path", "needs kind and name to select the object it is in")
    if problems.count != before:
        return None
    return EnvCheck(
        env=str(env).rstrip("/"),
        kind=kind,
        name=name,
        path=path,
        equals=item.get("equals"),
        matches=pattern,
        absent=item.get("absent") is True,
        has_equals="equals" in item,
    )


def _path(value: Any, key: str, problems: _Problems) -> tuple[str, ...]:
    """`spec.template.spec.containers.0.image`; a `\\.` is a dot inside a key
    (`data.config\\.yaml`, `metadata.labels.app\\.kubernetes\\.io/name`)."""
    if value is None:
        return ()
    if not isinstance(value, str) or not value:
        problems.add(key, "must be a dotted path such as spec.replicas")
        return ()
    parts = [p.replace("\0", ".") for p in value.replace("\\.", "\0").split(".")]
    if any(not p for p in parts):
        problems.add(key, f"{value!r} has an empty part")
        return ()
    return tuple(parts)
