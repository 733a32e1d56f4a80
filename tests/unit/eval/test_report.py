"""The report: the JSON shape CONTRACT.md fixes, and the Markdown people read."""

from __future__ import annotations

import json

from bot.eval.report import Report, to_json, to_markdown
from bot.eval.runner import RunResult, TaskResult

CONTRACT_RUN_KEYS: dict[str, type | tuple[type, ...]] = {
    "passed": bool,
    "failed_check": (int, type(None)),
    "model_calls": int,
    "tool_calls": int,
    "input_tokens": int,
    "output_tokens": int,
    "seconds": float,
}


def sample() -> Report:
    return Report(
        "anthropic",
        "claude-x",
        [
            TaskResult(
                "scale-prod",
                (
                    RunResult("scale-prod", 1, True, None, None, None, 4, 3, 5120, 310, 2.4),
                    RunResult(
                        "scale-prod",
                        2,
                        False,
                        1,
                        "environments/dev changed: Deployment/api",
                        None,
                        5,
                        4,
                        6000,
                        400,
                        3.1,
                    ),
                ),
            ),
            TaskResult(
                "refuse-apply",
                (
                    RunResult("refuse-apply", 1, False, error="invalid: bad model", seconds=0.2),
                    RunResult("refuse-apply", 2, True, None, None, None, 1, 0, 900, 40, 1.0),
                ),
            ),
        ],
    )


def test_json_has_the_contract_shape() -> None:
    data = json.loads(json.dumps(to_json(sample())))

    assert {k: data[k] for k in ("provider", "model", "passed", "total")} == {
        "provider": "anthropic",
        "model": "claude-x",
        "passed": 2,
        "total": 4,
    }
    assert [t["id"] for t in data["tasks"]] == ["scale-prod", "refuse-apply"]
    for task in data["tasks"]:
        for run in task["runs"]:
            for key, kind in CONTRACT_RUN_KEYS.items():
                assert isinstance(run[key], kind), (key, run)
    first, second = data["tasks"][0]["runs"]
    assert first == {
        "passed": True,
        "failed_check": None,
        "model_calls": 4,
        "tool_calls": 3,
        "input_tokens": 5120,
        "output_tokens": 310,
        "seconds": 2.4,
        "reason": None,
        "error": None,
    }
    assert (second["failed_check"], second["reason"]) == (
        1,
        "environments/dev changed: Deployment/api",
    )
    errored = data["tasks"][1]["runs"][0]
    assert (errored["passed"], errored["failed_check"], errored["error"]) == (
        False,
        None,
        "invalid: bad model",
    )
    assert [t["passed"] for t in data["tasks"]] == [1, 1]


def test_markdown_has_a_row_per_run_totals_passes_per_task_and_the_failures() -> None:
    text = to_markdown(sample())

    assert text.startswith("# tanka-bot eval: anthropic claude-x\n\n**2/4 runs passed (50%)**")
    assert "| scale-prod | 1 | pass |  | 4 | 3 | 5,120 | 310 | 2.4 |" in text
    assert "| scale-prod | 2 | FAIL | 1 | 5 | 4 | 6,000 | 400 | 3.1 |" in text
    assert "| refuse-apply | 1 | error |  | 0 | 0 | 0 | 0 | 0.2 |" in text
    assert "| **total** | 4 | 2 passed | | 10 | 7 | 12,020 | 750 | 6.7 |" in text
    assert "- scale-prod: 1/2\n- refuse-apply: 1/2\n" in text
    assert "- scale-prod (run 2): check 1: environments/dev changed: Deployment/api\n" in text
    assert "- refuse-apply (run 1): error: invalid: bad model\n" in text


def test_a_single_run_report_has_no_per_task_counts() -> None:
    report = Report("gemini", "g", [TaskResult("a", (RunResult("a", 1, True),))])

    text = to_markdown(report)

    assert "**1/1 runs passed (100%)**\n" in text
    assert "Passes per task" not in text
    assert "Failures" not in text
