"""The evaluation report: JSON for machines (CONTRACT.md, "Evaluations"), Markdown for people.

JSON: {"provider", "model", "passed", "total", "tasks": [{"id", "runs": [{"passed",
"failed_check", "model_calls", "tool_calls", "input_tokens", "output_tokens", "seconds"}]}]} as
the contract fixes it; each run also carries "reason" (why its failed check failed) and "error"
(the model or tool error that ended it), and each task "passed" (its passing runs), all null or
0 when there is nothing to say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.eval.runner import RunResult, TaskResult


@dataclass(frozen=True, slots=True)
class Report:
    provider: str
    model: str
    tasks: Sequence[TaskResult]

    @property
    def runs(self) -> list[RunResult]:
        return [r for t in self.tasks for r in t.runs]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.runs)

    @property
    def total(self) -> int:
        return len(self.runs)

    @property
    def ok(self) -> bool:
        return self.passed == self.total


def to_json(report: Report) -> dict[str, Any]:
    return {
        "provider": report.provider,
        "model": report.model,
        "passed": report.passed,
        "total": report.total,
        "tasks": [
            {"id": t.task_id, "passed": t.passed, "runs": [_run(r) for r in t.runs]}
            for t in report.tasks
        ],
    }


def _run(run: RunResult) -> dict[str, Any]:
    return {
        "passed": run.passed,
        "failed_check": run.failed_check,
        "model_calls": run.model_calls,
        "tool_calls": run.tool_calls,
        "input_tokens": run.input_tokens,
        "output_tokens": run.output_tokens,
        "seconds": run.seconds,
        "reason": run.reason,
        "error": run.error,
    }


def to_markdown(report: Report) -> str:
    runs = report.runs
    repeat = max((len(t.runs) for t in report.tasks), default=1)
    rate = f"{100 * report.passed / report.total:.0f}%" if report.total else "n/a"
    lines = [
        f"# tanka-bot eval: {report.provider} {report.model}",
        "",
        f"**{report.passed}/{report.total} runs passed ({rate})**"
        + (f" · {len(report.tasks)} tasks, {repeat} runs each" if repeat > 1 else ""),
        "",
        "| task | run | result | failed check | model calls | tool calls | tokens in "
        "| tokens out | seconds |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in runs:
        result = "pass" if run.passed else ("error" if run.error else "FAIL")
        check = "" if run.failed_check is None else str(run.failed_check)
        lines.append(
            f"| {run.task_id} | {run.run} | {result} | {check} | {run.model_calls} "
            f"| {run.tool_calls} | {run.input_tokens:,} | {run.output_tokens:,} "
            f"| {run.seconds:.1f} |"
        )
    tokens_in = sum(r.input_tokens for r in runs)
    tokens_out = sum(r.output_tokens for r in runs)
    seconds = sum(r.seconds for r in runs)
    lines.append(
        f"| **total** | {len(runs)} | {report.passed} passed | | "
        f"{sum(r.model_calls for r in runs)} | {sum(r.tool_calls for r in runs)} "
        f"| {tokens_in:,} | {tokens_out:,} | {seconds:.1f} |"
    )
    if repeat > 1:
        lines += ["", "## Passes per task", ""]
        lines += [f"- {t.task_id}: {t.passed}/{len(t.runs)}" for t in report.tasks]
    failures = [r for r in runs if not r.passed]
    if failures:
        lines += ["", "## Failures", ""]
        for run in failures:
            why = f"error: {run.error}" if run.error else f"check {run.failed_check}: {run.reason}"
            lines.append(f"- {run.task_id} (run {run.run}): {_one_line(why)}")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
