"""The runner with a scripted model: scoring, isolation between runs, errors that end one run,
--jobs, --repeat, budgets and the progress callback."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bot.agent.agent import Agent
from bot.agent.budget import Budgets
from bot.agent.errors import AgentError, ErrorKind
from bot.agent.messages import ModelRequest, ModelResponse
from bot.agent.prompts import system_prompt
from bot.eval.runner import RunResult, SuiteRunner, TaskResult
from bot.eval.tasks import Task, load_suite
from fakes.scripted_provider import ScriptedProvider, Step, call, last_results, reply, tools
from tests.tree import digest_tree
from tools.catalog import default_registry
from tools.context import ToolContext

SHOP = Path(__file__).parents[3] / "evals" / "fixtures" / "shop"
PROD = "environments/prod/main.jsonnet"

SCALE = f"""\
id: scale
repo: {SHOP}
prompt: scale the api in prod to 6 replicas
expect:
  - env: environments/prod
    kind: Deployment
    name: api
    path: spec.replicas
    equals: 6
  - unchanged: [environments/dev, environments/staging]
"""
QUESTION = f"""\
id: question
repo: {SHOP}
prompt: how many api replicas in prod?
expect:
  - no_changes: true
  - answer_matches: "\\\\b4\\\\b"
"""


class ByPrompt:
    """One script per prompt, so runs may reach the model in any order."""

    name = "scripted"
    model = "scripted-1"

    def __init__(self, scripts: dict[str, list[Step]]) -> None:
        self.scripts = {prompt: ScriptedProvider(steps) for prompt, steps in scripts.items()}

    def complete(self, request: ModelRequest) -> ModelResponse:
        return self.scripts[request.messages[0].text].complete(request)


def suite(tmp_path: Path, *texts: str) -> list[Task]:
    folder = tmp_path / "suite"
    folder.mkdir()
    for i, text in enumerate(texts):
        (folder / f"{i}.yaml").write_text(text)
    return load_suite(folder)


def runner(
    provider: ScriptedProvider | ByPrompt,
    tmp_path: Path,
    *,
    jobs: int = 1,
    budgets: Budgets | None = None,
    seen: list[tuple[int, int, RunResult]] | None = None,
) -> SuiteRunner:
    agent = Agent(
        provider, default_registry(), system_prompt=system_prompt(), budgets=budgets or Budgets()
    )
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)

    def progress(done: int, total: int, run: RunResult) -> None:
        if seen is not None:
            seen.append((done, total, run))

    return SuiteRunner(
        agent,
        lambda root, base, folder: ToolContext(root=root, base_commit=base),
        workdir=work,
        jobs=jobs,
        progress=progress,
    )


def edit(old: str, new: str, path: str = PROD) -> ModelResponse:
    return tools(call("file_edit", path=path, old_text=old, new_text=new))


def only_run(results: list[TaskResult], task_id: str) -> RunResult:
    [task] = [t for t in results if t.task_id == task_id]
    [run] = task.runs
    return run


def test_a_solved_task_passes_and_a_wrong_edit_fails_the_right_check(tmp_path: Path) -> None:
    tasks = suite(tmp_path, SCALE, QUESTION)
    model = ScriptedProvider(
        [
            edit("api: 4,", "api: 6,"),
            reply("Scaled the api in prod to 6."),
            # The question: the model edits instead of answering.
            edit("api: 4,", "api: 5,"),
            reply("There are 4; I also made it 5."),
        ]
    )

    results = runner(model, tmp_path).run(tasks)

    assert [t.task_id for t in results] == ["scale", "question"]
    scale = only_run(results, "scale")
    assert scale == RunResult(
        "scale",
        1,
        True,
        model_calls=2,
        tool_calls=1,
        input_tokens=20,
        output_tokens=10,
        seconds=scale.seconds,
    )
    question = only_run(results, "question")
    assert (question.passed, question.failed_check, question.error) == (False, 0, None)
    assert question.reason == f"the checkout changed: {PROD}"


def test_an_edit_leaking_into_another_environment_fails_unchanged(tmp_path: Path) -> None:
    tasks = suite(tmp_path, SCALE)
    lib = "lib/shop/shop.libsonnet"
    model = ScriptedProvider(
        [edit("api: 4,", "api: 6,"), edit("api: 1,", "api: 2,", lib), reply("done")]
    )

    [result] = runner(model, tmp_path).run(tasks)

    assert result.runs[0].failed_check == 1
    assert result.runs[0].reason == "environments/dev changed: Deployment/api"


def test_runs_are_isolated_from_each_other_and_from_the_fixture(tmp_path: Path) -> None:
    tasks = suite(tmp_path, SCALE)
    before = digest_tree(SHOP)

    def then(expect_error: bool, step: ModelResponse) -> Step:
        def check(request: ModelRequest) -> ModelResponse:
            [(content, is_error)] = last_results(request).values()
            assert is_error == expect_error, content
            return step

        return check

    model = ScriptedProvider(
        [
            edit("api: 4,", "api: 6,"),
            tools(call("file_write", path="leak.txt", content="from run 1")),
            reply("done"),
            # Run 2 finds the fixture's text (run 1's edit is not there) and no leak.txt.
            edit("api: 4,", "api: 6,"),
            then(False, tools(call("file_read", path="leak.txt"))),
            then(True, reply("done")),
        ]
    )

    [result] = runner(model, tmp_path).run(tasks, repeat=2)

    assert [(r.passed, r.error) for r in result.runs] == [(True, None), (True, None)]
    assert model.remaining == 0
    assert result.passed == 2
    assert digest_tree(SHOP) == before
    assert list((tmp_path / "work").iterdir()) == []  # every scratch folder removed


def test_a_model_error_ends_that_run_and_the_suite_goes_on(tmp_path: Path) -> None:
    tasks = suite(tmp_path, SCALE, QUESTION)
    model = ScriptedProvider(
        [
            edit("api: 4,", "api: 6,"),
            AgentError(ErrorKind.INVALID, "model 'nope' does not exist"),
            reply("prod runs 4 api replicas"),
        ]
    )

    results = runner(model, tmp_path).run(tasks)

    scale = only_run(results, "scale")
    assert (scale.passed, scale.failed_check) == (False, None)
    assert scale.error == "invalid: model 'nope' does not exist"
    assert (scale.model_calls, scale.tool_calls) == (1, 1)
    assert only_run(results, "question").passed


def test_a_failure_outside_the_turn_is_recorded_and_the_suite_goes_on(tmp_path: Path) -> None:
    tasks = suite(tmp_path, SCALE, QUESTION)
    model = ScriptedProvider([reply("4 replicas")])
    broken = runner(model, tmp_path)
    contexts = 0

    def context(root: Path, base: str, folder: Path) -> ToolContext:
        nonlocal contexts
        contexts += 1
        if contexts == 1:
            raise OSError(28, "No space left on device")
        return ToolContext(root=root, base_commit=base)

    broken.make_context = context

    results = broken.run(tasks)

    scale = only_run(results, "scale")
    assert (scale.passed, scale.error) == (False, "OSError: [Errno 28] No space left on device")
    assert only_run(results, "question").passed


def test_the_turn_budgets_apply_to_each_run(tmp_path: Path) -> None:
    tasks = suite(tmp_path, SCALE)
    model = ScriptedProvider([edit("api: 4,", "api: 6,"), reply("done")])

    [result] = runner(model, tmp_path, budgets=Budgets(max_steps=1)).run(tasks)

    run = result.runs[0]
    assert not run.passed
    assert run.error is not None
    assert run.error.startswith("budget: ")
    assert model.remaining == 1


def test_jobs_run_several_tasks_at_once(tmp_path: Path) -> None:
    tasks = suite(tmp_path, SCALE, QUESTION)
    both = threading.Barrier(2, timeout=20)

    def meet(answer: str) -> Step:
        def step(request: ModelRequest) -> ModelResponse:
            both.wait()  # raises BrokenBarrierError unless the other run is in flight too
            return reply(answer)

        return step

    model = ByPrompt(
        {
            "scale the api in prod to 6 replicas": [edit("api: 4,", "api: 6,"), meet("done")],
            "how many api replicas in prod?": [meet("4 replicas")],
        }
    )
    seen: list[tuple[int, int, RunResult]] = []

    results = runner(model, tmp_path, jobs=2, seen=seen).run(tasks)

    assert [t.passed for t in results] == [1, 1]
    assert [(done, total) for done, total, _ in seen] == [(1, 2), (2, 2)]
    assert {run.task_id for _, _, run in seen} == {"scale", "question"}


@pytest.mark.parametrize("repeat", [1, 3])
def test_repeat_runs_each_task_n_times_in_order(tmp_path: Path, repeat: int) -> None:
    tasks = suite(tmp_path, QUESTION)
    answers = ["4", "five", "4"][:repeat]
    model = ScriptedProvider([reply(f"{a} replicas") for a in answers])

    [result] = runner(model, tmp_path).run(tasks, repeat=repeat)

    assert [r.run for r in result.runs] == list(range(1, repeat + 1))
    assert [r.passed for r in result.runs] == [a == "4" for a in answers]
