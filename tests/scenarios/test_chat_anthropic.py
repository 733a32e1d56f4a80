"""`tanka-bot chat` with the real `anthropic` SDK against the fake Messages API.

The model explores the project, edits an environment, validates it and answers; the bot must run
the real tools, feed every result back under the right tool_use id, and print the answer, the
token use and the git diff. Provider failures: overloads are retried, a bad key ends the chat with
one line that never shows the key.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from fakes.anthropic_server import anthropic_error, anthropic_stream_error
from tests.scenarios.conftest import ANTHROPIC_KEY, Chat
from tests.scenarios.models import AnthropicModel, Call
from tests.scenarios.project import APP_LIB, DEV_MAIN, git
from tests.scenarios.wire import anthropic_pairing_problems
from tools.catalog import default_registry
from tools.files import DASH  # the en dash of paging headers

DEV = "environments/dev/main.jsonnet"
PROMPT = "scale grafana in dev to 3 replicas"
FAST_RETRY = {"retry-after-ms": "1"}  # the loop honours it, so retries take a millisecond

STEPS = [
    Call("toolu_list", "file_list", {"glob_pattern": "**/*.*sonnet"}),
    Call("toolu_read", "file_read", {"path": "lib/app.libsonnet"}),
    Call(
        "toolu_edit",
        "file_edit",
        {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=3"},
    ),
    Call("toolu_validate", "tanka_validate_jsonnet", {"file_path": DEV}),
]
ANSWER = "Scaled grafana in dev from 1 to 3 replicas; the file validates."


def _script_flow(model: AnthropicModel) -> None:
    model.calls(STEPS[0], text="Let me look at the project first.")
    for step in STEPS[1:]:
        model.calls(step)
    model.answer(ANSWER, input_tokens=1200, output_tokens=80)


def test_multi_step_edit_runs_real_tools_and_prints_answer_usage_and_diff(
    project: Path, anthropic: AnthropicModel, chat: Chat
) -> None:
    _script_flow(anthropic)

    run = chat(project, PROMPT, anthropic)

    assert run.code == 0, run.err
    assert run.err == ""
    # The file changed exactly as asked, nothing else changed, nothing was committed.
    assert (project / DEV).read_text() == DEV_MAIN.replace("replicas=1", "replicas=3")
    assert git(project, "status", "--porcelain") == f" M {DEV}\n"
    assert git(project, "rev-list", "--count", "HEAD").strip() == "1"
    # What the user saw: tool lines, the answer, 4 x (10 + 5) + (1200 + 80) tokens, the diff.
    out = run.out
    assert "Let me look at the project first.\n  → file_list glob_pattern=**/*.*sonnet\n" in out
    assert f"  ← ok 5 lines: [1{DASH}4 of 4 files matching" in out
    assert f"  → file_edit path={DEV} old_text=replicas=1 new_text=replicas=3\n" in out
    assert "  ← ok 1 line: ✓ valid\n" in out
    assert f"\n{ANSWER}\n" in out
    assert "tokens: turn 1,340 (in 1,240 · out 100, 5 model calls) · session 1,340\n" in out
    diff = out[out.index("── git diff ──") :]
    assert out.index(ANSWER) < out.index("── git diff ──")
    assert f"diff --git a/{DEV} b/{DEV}\n" in diff
    assert "-  grafana: app.deployment('grafana', replicas=1),\n" in diff
    assert "+  grafana: app.deployment('grafana', replicas=3),\n" in diff
    assert diff.count("diff --git") == 1


def test_the_model_receives_tool_specs_and_each_result_under_its_id(
    project: Path, anthropic: AnthropicModel, chat: Chat
) -> None:
    _script_flow(anthropic)

    assert chat(project, PROMPT, anthropic).code == 0

    bodies = anthropic.bodies()
    assert len(bodies) == 5
    assert anthropic.pending() == 0
    assert anthropic.tool_names() == default_registry().names()
    edit_schema = next(t for t in bodies[0]["tools"] if t["name"] == "file_edit")["input_schema"]
    assert edit_schema["required"] == ["path", "old_text", "new_text"]
    assert bodies[0]["messages"][0]["content"][0]["text"] == PROMPT
    assert "Tanka" in bodies[0]["system"][0]["text"]
    # Request k carries exactly the result of step k's call, under that call's id.
    for k, step in enumerate(STEPS, start=1):
        [seen] = anthropic.results(k)
        assert (seen.id, seen.name, seen.is_error) == (step.id, step.name, False)
    listed = anthropic.results(1)[0].content
    assert listed.splitlines() == [
        f'[1{DASH}4 of 4 files matching "**/*.*sonnet"]',
        DEV,
        "environments/prod/main.jsonnet",
        "lib/app.libsonnet",
        "lib/obsolete.libsonnet",
    ]
    read = anthropic.results(2)[0].content
    assert read == f"[lib/app.libsonnet: lines 1{DASH}8 of 8]\n" + APP_LIB.rstrip("\n")
    assert anthropic.results(3)[0].content.startswith(f"edited {DEV}: replaced 1 occurrence")
    assert anthropic.results(4)[0].content == "✓ valid"
    # The last request holds the whole history, each tool_use answered right after it.
    final = bodies[-1]["messages"]
    assert [m["role"] for m in final] == ["user", "assistant"] * 4 + ["user"]
    assert anthropic_pairing_problems(final) == []


def test_overload_mid_turn_is_retried_and_the_chat_completes(
    project: Path, anthropic: AnthropicModel, chat: Chat
) -> None:
    anthropic.calls(STEPS[1])
    anthropic.fake.script(
        anthropic_error(529, "overloaded_error", "Overloaded", headers=FAST_RETRY),
        # A 200 stream that fails half-way (the SDK raises it with status 200).
        dataclasses.replace(anthropic_stream_error("overloaded_error"), headers=FAST_RETRY),
    )
    anthropic.answer("lib/app.libsonnet defines the deployment helper.")

    run = chat(project, "what does lib/app.libsonnet define?", anthropic)

    assert run.code == 0, run.err
    overloaded = "  … rate_limit: Anthropic is overloaded (Overloaded); try again soon;"
    assert run.out.count(overloaded) == 2
    assert "retrying in 0.0 s (attempt 2)" in run.out
    assert "retrying in 0.0 s (attempt 3)" in run.out
    assert "\nlib/app.libsonnet defines the deployment helper.\n" in run.out
    assert "2 model calls" in run.out  # failed attempts cost no tokens and are not steps
    assert "no changes in the checkout" in run.out
    bodies = anthropic.bodies()
    assert len(bodies) == 4
    # Each retry resends the same conversation: the tool result is not lost or duplicated.
    assert bodies[1]["messages"] == bodies[2]["messages"] == bodies[3]["messages"]
    [seen] = anthropic.results(3)
    assert seen.id == "toolu_read"
    assert seen.content.endswith(APP_LIB.rstrip("\n"))


def test_rejected_key_ends_with_one_line_and_never_shows_the_key(
    project: Path, anthropic: AnthropicModel, chat: Chat
) -> None:
    wrong = "dummy-anthropic-wrong-SECRET-0d1e2f"

    run = chat(project, PROMPT, anthropic, key=wrong)

    assert run.code == 1
    assert run.err == (
        "tanka-bot: error: the turn did not finish: invalid: Anthropic rejected the API key "
        "(HTTP 401: invalid x-api-key); check ANTHROPIC_API_KEY\n"
    )
    assert wrong not in run.out + run.err
    assert "✗ turn stopped: invalid: Anthropic rejected the API key" in run.out
    assert len(anthropic.bodies()) == 1  # not retried
    sent = anthropic.fake.requests[0]
    # The SDK sends the key as x-api-key or as a bearer token, depending on its version.
    assert wrong in (sent.header("x-api-key"), (sent.header("authorization") or "")[7:])
    assert (project / DEV).read_text() == DEV_MAIN


def test_an_error_that_echoes_the_key_is_redacted(
    project: Path, anthropic: AnthropicModel, chat: Chat
) -> None:
    # A proxy in front of the API may quote the key it refused; the bot must not repeat it.
    anthropic.fake.script(
        anthropic_error(401, "authentication_error", f"key {ANTHROPIC_KEY} is revoked")
    )

    run = chat(project, PROMPT, anthropic)

    assert run.code == 1
    assert ANTHROPIC_KEY not in run.out + run.err
    assert run.err.count("\n") == 1
    assert "(HTTP 401: key <redacted> is revoked); check ANTHROPIC_API_KEY" in run.err


def test_step_budget_stops_the_turn_keeps_the_edit_and_exits_non_zero(
    project: Path, anthropic: AnthropicModel, chat: Chat
) -> None:
    anthropic.calls(STEPS[2])  # the edit
    anthropic.calls(STEPS[3])  # the validation; its result is never sent
    anthropic.answer(ANSWER)

    run = chat(project, PROMPT, anthropic, env={"TANKA_BOT_MAX_STEPS": "2"})

    assert run.code == 1
    assert run.err == (
        "tanka-bot: error: the turn did not finish: budget: step budget used up: 2 model calls "
        "of max 2 (TANKA_BOT_MAX_STEPS); reply to continue, or raise the limit\n"
    )
    assert len(anthropic.bodies()) == 2
    assert anthropic.pending() == 1
    # The validation ran before the budget check; the edit stays and the diff is still shown.
    assert "  ← ok 1 line: ✓ valid\n" in run.out
    assert (project / DEV).read_text() == DEV_MAIN.replace("replicas=1", "replicas=3")
    assert "+  grafana: app.deployment('grafana', replicas=3),\n" in run.out
