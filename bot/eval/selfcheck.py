"""`tanka-bot eval --check-tasks`: are the tasks' checkers honest? No model involved.

For each task, on a fresh repository from its fixture: `expect` must fail on the base commit (with
an empty answer), else the checker cannot tell a solved task from an untouched one; and with the
reference applied (the `reference` patch and the `reference_answer`, when either is given) every
check must hold, else the task cannot be solved as written.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bot.eval.checks import Verdict, Workspace, evaluate
from bot.eval.repos import apply_patch, changed_files, fresh_repo
from bot.eval.runner import Bases
from bot.eval.tasks import Check, EnvCheck, Task, Unchanged
from tools.gitrun import GitError


@dataclass(frozen=True, slots=True)
class TaskCheck:
    task_id: str
    problems: tuple[str, ...]  # empty: the task is sound
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.problems


def check_tasks(
    tasks: Sequence[Task],
    *,
    jobs: int = 1,
    workdir: Path | None = None,
    progress: Callable[[TaskCheck], None] | None = None,
) -> list[TaskCheck]:
    scratch = Path(tempfile.mkdtemp(prefix="tanka-bot-check-tasks-", dir=workdir))
    bases = Bases(scratch)
    try:

        def one(task: Task) -> TaskCheck:
            result = _check(task, bases, scratch)
            if progress is not None:
                progress(result)
            return result

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(one, tasks))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _check(task: Task, bases: Bases, scratch: Path) -> TaskCheck:
    started = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix=f"{task.id}-", dir=scratch))
    problems: list[str] = []
    try:
        root = folder / "repo"
        base = fresh_repo(task.repo, root)
        base_root = bases.root(task.repo)

        def verdict(answer: str) -> Verdict:
            ws = Workspace(root, base_root, changed_files(root, base), bases.renders)
            return evaluate(task.expect, ws, answer)

        if verdict("").passed:
            problems.append("passes on its base commit: no check can tell it was solved")
        if task.reference is not None or task.reference_answer:
            if task.reference is not None:
                try:
                    apply_patch(root, task.reference)
                except GitError as exc:
                    problems.append(f"its reference patch does not apply: {exc}")
                    return TaskCheck(task.id, tuple(problems), _since(started))
            solved = verdict(task.reference_answer)
            if not solved.passed and solved.failed_check is not None:
                check = task.expect[solved.failed_check]
                problems.append(
                    f"fails with its reference: check {solved.failed_check} "
                    f"({label(check)}): {solved.reason}"
                )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return TaskCheck(task.id, tuple(problems), _since(started))


def label(check: Check) -> str:
    """A check in a few words, for messages."""
    if isinstance(check, EnvCheck):
        return f"env {check.describe()}"
    if isinstance(check, Unchanged):
        return "unchanged"
    return type(check).__name__


def _since(started: float) -> float:
    return round(time.monotonic() - started, 2)
