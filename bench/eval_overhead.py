"""`tanka-bot eval`'s own overhead per task on the shipped suite. Prints figures only.

    .venv/bin/python bench/eval_overhead.py

A scripted "model" solves every task instantly: it applies the task's reference patch to the
run's checkout and answers with the reference answer, in one model call. What is left of each
run's time is the runner's: the fixture copied and committed, the agent's turn set-up, the
checks (renders of the working tree and, once per suite, of the base). Target: < 0.5 s a task.
Then the same for `--check-tasks` (base and reference checks, no model).
"""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

from bot.agent.agent import Agent
from bot.agent.messages import Message, ModelRequest, ModelResponse, StopReason, Text, Usage
from bot.agent.prompts import system_prompt
from bot.eval.command import DEFAULT_TASKS
from bot.eval.repos import apply_patch
from bot.eval.runner import SuiteRunner
from bot.eval.selfcheck import check_tasks
from bot.eval.tasks import Task, load_suite
from tools.catalog import default_registry
from tools.context import ToolContext


class ReferenceModel:
    """Solves the task of the checkout the runner just made (one run at a time)."""

    name = "reference"
    model = "reference-1"

    def __init__(self, tasks: list[Task]) -> None:
        self.by_prompt = {t.prompt: t for t in tasks}
        self.root: Path | None = None
        self.lock = threading.Lock()
        self.seconds = 0.0

    def context(self, root: Path, base: str, folder: Path) -> ToolContext:
        self.root = root
        return ToolContext(root=root, base_commit=base)

    def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        task = self.by_prompt[request.messages[0].text]
        if task.reference is not None and self.root is not None:
            apply_patch(self.root, task.reference)
        self.seconds += time.perf_counter() - started
        answer = task.reference_answer or "done"
        return ModelResponse(Message("assistant", (Text(answer),)), Usage(), StopReason.COMPLETE)


def main() -> None:
    tasks = load_suite(DEFAULT_TASKS)
    model = ReferenceModel(tasks)
    agent = Agent(model, default_registry(), system_prompt=system_prompt())
    runner = SuiteRunner(agent, model.context, jobs=1)

    started = time.perf_counter()
    results = runner.run(tasks)
    wall = time.perf_counter() - started
    runs = [r for t in results for r in t.runs]
    assert all(r.passed for r in runs), [r for r in runs if not r.passed]
    per_task = [r.seconds for r in runs]
    overhead = (wall - model.seconds) / len(runs)
    print(f"eval, {len(runs)} tasks solved by their reference (jobs 1): {wall:.2f} s wall")
    print(f"  runner overhead per task (minus patch application): {overhead:.3f} s")
    print(
        f"  per run: median {statistics.median(per_task):.2f} s, max {max(per_task):.2f} s"
        f" ({max(runs, key=lambda r: r.seconds).task_id})"
    )

    for jobs in (1, 2):
        started = time.perf_counter()
        checked = check_tasks(tasks, jobs=jobs)
        wall = time.perf_counter() - started
        assert all(c.ok for c in checked), [c for c in checked if not c.ok]
        print(f"--check-tasks, {len(checked)} tasks (jobs {jobs}): {wall:.2f} s wall")


if __name__ == "__main__":
    main()
