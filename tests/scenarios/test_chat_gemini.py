"""`tanka-bot chat` with the real `google-genai` SDK against the fake Gemini API.

The same edit flow as the Anthropic scenario, with two parallel function calls in one step and a
thought signature on each step's first call: the fake rejects any request that does not echo
every signature it issued on the same part, so a finished chat proves they went back intact.
Run with and without call ids (Gemini often sends none; results are then matched by order).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes.gemini_server import gemini_error
from tests.scenarios.conftest import GEMINI_KEY, Chat
from tests.scenarios.models import Call, GeminiModel
from tests.scenarios.project import APP_LIB, DEV_MAIN, git
from tests.scenarios.wire import gemini_pairing_problems
from tools.catalog import default_registry
from tools.files import DASH  # the en dash of paging headers

DEV = "environments/dev/main.jsonnet"
PROMPT = "scale grafana in dev to 3 replicas"
LIST = Call("call_list", "file_list", {"glob_pattern": "environments/*/main.jsonnet"})
READ = Call("call_read", "file_read", {"path": "lib/app.libsonnet"})
EDIT = Call(
    "call_edit", "file_edit", {"path": DEV, "old_text": "replicas=1", "new_text": "replicas=3"}
)
VALIDATE = Call("call_validate", "tanka_validate_jsonnet", {"file_path": DEV})
ANSWER = "grafana in dev now runs 3 replicas."


@pytest.mark.parametrize("ids", [True, False], ids=["with-ids", "without-ids"])
def test_multi_step_edit_with_parallel_calls_and_thought_signatures(
    project: Path, gemini: GeminiModel, chat: Chat, ids: bool
) -> None:
    gemini.ids = ids
    gemini.calls(LIST, READ, text="Looking at the environments and the library.")
    gemini.calls(EDIT)
    gemini.calls(VALIDATE)
    gemini.answer(ANSWER, input_tokens=1200, output_tokens=80)

    run = chat(project, PROMPT, gemini)

    assert run.code == 0, run.err
    assert run.err == ""
    assert (project / DEV).read_text() == DEV_MAIN.replace("replicas=1", "replicas=3")
    assert git(project, "status", "--porcelain") == f" M {DEV}\n"
    out = run.out
    assert "  → file_list glob_pattern=environments/*/main.jsonnet\n" in out
    assert "  → file_read path=lib/app.libsonnet\n" in out
    assert f"\n{ANSWER}\n" in out
    assert "tokens: turn 1,325 (in 1,230 · out 95, 4 model calls) · session 1,325\n" in out
    assert "+  grafana: app.deployment('grafana', replicas=3),\n" in out
    assert out.index(ANSWER) < out.index("── git diff ──")

    assert gemini.request_count() == 4
    assert gemini.pending() == 0
    assert gemini.tool_names() == default_registry().names()
    # Both parallel results come back in one turn, in call order, under the calls' names (ids).
    listed, read = gemini.results(1)
    want_id = (lambda call: call.id) if ids else (lambda call: None)
    assert (listed.id, listed.name, listed.is_error) == (want_id(LIST), "file_list", False)
    assert listed.content.splitlines()[1:] == [DEV, "environments/prod/main.jsonnet"]
    assert (read.id, read.name, read.is_error) == (want_id(READ), "file_read", False)
    assert read.content == f"[lib/app.libsonnet: lines 1{DASH}8 of 8]\n" + APP_LIB.rstrip("\n")
    [edited] = gemini.results(2)
    assert (edited.id, edited.name) == (want_id(EDIT), "file_edit")
    assert edited.content.startswith(f"edited {DEV}: replaced 1 occurrence")
    [validated] = gemini.results(3)
    assert (validated.name, validated.content) == ("tanka_validate_jsonnet", "✓ valid")
    # Request k echoes the signatures of steps 1..k, each on the call it came with.
    for k in range(1, 4):
        assert gemini.echoed_signatures(k) == gemini.signatures[:k]
    final = gemini.bodies()[-1]["contents"]
    assert gemini_pairing_problems(final) == []
    assert final[0] == {"role": "user", "parts": [{"text": PROMPT}]}


def test_unavailable_mid_turn_is_retried_and_the_chat_completes(
    project: Path, gemini: GeminiModel, chat: Chat
) -> None:
    gemini.calls(READ)
    gemini.fake.script(gemini_error(503, "The model is overloaded.", retry_delay="0.001s"))
    gemini.answer("It defines a deployment helper.")

    run = chat(project, "what does lib/app.libsonnet define?", gemini)

    assert run.code == 0, run.err
    assert "  … agent: Gemini failed (HTTP 503): UNAVAILABLE The model is overloaded.;" in run.out
    assert "retrying in 0.0 s (attempt 2)" in run.out
    assert "\nIt defines a deployment helper.\n" in run.out
    bodies = gemini.bodies()
    assert len(bodies) == 3
    assert bodies[1]["contents"] == bodies[2]["contents"]  # the retry resends the same turn
    [seen] = gemini.results(2)
    assert seen.content.endswith(APP_LIB.rstrip("\n"))


def test_invalid_key_ends_with_one_line_and_never_shows_the_key(
    project: Path, gemini: GeminiModel, chat: Chat
) -> None:
    wrong = "AIza-wrong-SECRET-0d1e2f"

    run = chat(project, PROMPT, gemini, key=wrong)

    assert run.code == 1
    # Gemini answers a bad key with 400 API_KEY_INVALID; the adapter reports it as the 401 it is.
    assert run.err == (
        "tanka-bot: error: the turn did not finish: invalid: Gemini rejected the API key "
        "(HTTP 401: INVALID_ARGUMENT API key not valid. Please pass a valid API key.); "
        "check GEMINI_API_KEY (or GOOGLE_API_KEY)\n"
    )
    assert wrong not in run.out + run.err
    assert GEMINI_KEY not in run.out + run.err
    assert len(gemini.bodies()) == 1


def test_repl_second_turn_resends_the_first_turn_with_its_signatures(
    project: Path, gemini: GeminiModel, chat: Chat
) -> None:
    gemini.calls(READ)
    gemini.answer("lib/app.libsonnet has a deployment helper with 1 replica by default.")
    gemini.calls(EDIT)
    gemini.answer("dev now runs 3 replicas.")
    stdin = "what is in lib/app.libsonnet?\nscale dev to 3\n/diff\n/exit\n"

    run = chat(project, None, gemini, stdin=stdin)

    assert run.code == 0, run.err
    assert "\nlib/app.libsonnet has a deployment helper with 1 replica by default.\n" in run.out
    assert "\ndev now runs 3 replicas.\n" in run.out
    assert "· session 60\n" in run.out  # 4 calls of 10 + 5 tokens over both turns
    assert "+  grafana: app.deployment('grafana', replicas=3),\n" in run.out  # from /diff
    # Turn 2 starts from turn 1's whole exchange, signature included, then the new request.
    second = gemini.bodies()[2]["contents"]
    assert [c["role"] for c in second] == ["user", "model", "user", "model", "user"]
    assert second[3]["parts"][0]["text"].startswith("lib/app.libsonnet has a deployment")
    assert second[4] == {"role": "user", "parts": [{"text": "scale dev to 3"}]}
    assert gemini.echoed_signatures(2) == gemini.signatures[:1]
    assert gemini.echoed_signatures(3) == gemini.signatures[:2]
    assert gemini_pairing_problems(gemini.bodies()[3]["contents"]) == []
