"""`tanka-bot chat` one-shot on a repository whose Secret values leak every way we know of.

The model renders the environment, reads the source holding the values, asks for both diffs and
then repeats a value in its answer. Neither the tool results it is sent nor anything the chat
prints (tool lines, the answer, the git diff, the rendered diff) shows a value or its base64
form, while the non-secret change stays readable in both diffs.
"""

from __future__ import annotations

from pathlib import Path

from tests.scenarios.conftest import Chat
from tests.scenarios.models import AnthropicModel, Call
from tests.secret_repo import (
    APP,
    CREDS,
    ENV,
    NEW_PASSWORD,
    NEW_VISIBLE,
    PASSWORD,
    VISIBLE,
    b64,
    change_password,
    leaks,
    make_secret_repo,
    make_secret_repo_with_copy,
)
from tools.redaction import REDACTED

ANSWER = f"The password changed from {PASSWORD} to {NEW_PASSWORD} ({b64(NEW_PASSWORD)})."


def test_no_value_reaches_the_model_or_the_terminal(
    tmp_path: Path, anthropic: AnthropicModel, chat: Chat
) -> None:
    repo = make_secret_repo(tmp_path / "infra")
    change_password(repo)  # a hand edit before the chat: the password and a visible value
    anthropic.calls(Call("show", "tanka_show", {"env_path": ENV}))
    anthropic.calls(
        Call("diff", "tanka_diff", {"env_path": ENV}),
        Call("git", "git_diff", {}),
        Call("read", "file_read", {"path": CREDS}),
    )
    anthropic.answer(ANSWER)

    run = chat(repo, "what changed in prod?", anthropic)

    assert run.code == 0, run.err
    sent = [seen.content for request in (1, 2) for seen in anthropic.results(request)]
    assert len(sent) == 4
    assert [leaks(content) for content in sent] == [[]] * 4
    assert f"visible: {NEW_VISIBLE}" in sent[0]
    assert leaks(run.out) == []
    assert leaks(run.err) == []
    assert f"The password changed from {REDACTED} to {REDACTED} ({REDACTED})." in run.out
    git_diff = run.out[run.out.index("── git diff ──") : run.out.index("── rendered diff ──")]
    assert f"+  password: '{REDACTED}'," in git_diff.splitlines()
    rendered = run.out[run.out.index("── rendered diff ──") :]
    assert f"-  visible: {VISIBLE}" in rendered.splitlines()
    assert f"+  visible: {NEW_VISIBLE}" in rendered.splitlines()
    assert f"+  leaked: {REDACTED}" in rendered.splitlines()


def test_the_first_tool_output_and_a_copy_elsewhere_are_masked(
    tmp_path: Path, anthropic: AnthropicModel, chat: Chat
) -> None:
    # The model reads the source before anything was rendered, then shows an environment with
    # no Secret whose ConfigMap copies the password (plain, base64, URL-safe base64), and quotes
    # the value in its answer. The chat itself renders nothing before the first tool output.
    repo = make_secret_repo_with_copy(tmp_path / "infra")
    anthropic.calls(Call("read", "file_read", {"path": CREDS}))
    anthropic.calls(Call("show", "tanka_show", {"env_path": APP}))
    anthropic.answer(f"The copy holds {PASSWORD} ({b64(PASSWORD).rstrip('=')}).")

    run = chat(repo, "where is the db password copied?", anthropic)

    assert run.code == 0, run.err
    read, shown = (seen.content for request in (1, 2) for seen in anthropic.results(request))
    assert leaks(read) == []
    assert f"password: '{REDACTED}'" in read
    assert leaks(shown) == []
    assert f"copied_url: {REDACTED}" in shown
    assert leaks(run.out) == []
    assert leaks(run.err) == []
    assert f"The copy holds {REDACTED} ({REDACTED})." in run.out
