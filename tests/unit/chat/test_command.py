"""`tanka-bot chat` through bot.cli.main: one-shot and REPL on a real temporary git checkout."""

from __future__ import annotations

import io
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.agent.errors import AgentError, ErrorKind
from bot.agent.messages import LLMProvider, ModelRequest, ModelResponse, ToolCall
from bot.chat import command as chat
from bot.chat.repl import HELP
from bot.cli import main
from bot.compose import CommandDeps, build_code_host
from bot.config import Settings
from fakes.github_server import FakeGitHub
from fakes.scripted_provider import ScriptedProvider, Step, call, reply, tools
from tests.git import git
from tools.files import TOOLS as FILE_TOOLS
from tools.git import TOOLS as GIT_TOOLS
from tools.github import TOOLS as GITHUB_TOOLS
from tools.registry import ToolRegistry

# The reviewer is off: these tests script every model call (tests/scenarios/test_chat_review.py
# runs chat with it on).
ENV = {"ANTHROPIC_API_KEY": "sk-test-not-real", "TANKA_BOT_REVIEW": "false"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "infra"
    (root / "environments" / "prod").mkdir(parents=True)
    (root / "environments" / "prod" / "main.jsonnet").write_text("{ replicas: 1 }\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "initial")
    return root


class Harness:
    """A scripted provider and in-memory streams, injected into `tanka-bot chat` by `main`."""

    def __init__(self, steps: list[Step], stdin: str = "") -> None:
        self.provider = ScriptedProvider(steps)
        self.out = io.StringIO()
        self.settings: list[Settings] = []
        self.deps = CommandDeps(
            provider_factory=self._factory,
            registry_factory=lambda: ToolRegistry([*FILE_TOOLS, *GIT_TOOLS]),
            environ=ENV,
            stdin=io.StringIO(stdin),
            stdout=self.out,
        )

    def main(self, argv: list[str]) -> int:
        return main(argv, chat_deps=self.deps)

    def set_env(self, name: str, value: str) -> None:
        self.deps.environ = {**(self.deps.environ or {}), name: value}

    def _factory(self, settings: Settings) -> LLMProvider:
        self.settings.append(settings)
        return self.provider

    @property
    def text(self) -> str:
        return self.out.getvalue()


def test_one_shot_prints_tools_answer_usage_and_diff(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit = call(
        "file_edit",
        path="environments/prod/main.jsonnet",
        old_text="replicas: 1",
        new_text="replicas: 3",
    )
    new = call("file_write", path="environments/prod/extra.libsonnet", content="{ a: 1 }\n")
    h = Harness([tools(edit, new, text="Editing prod."), reply("Scaled prod to 3.")])

    assert h.main(["chat", "--repo", str(repo), "scale prod to 3"]) == 0

    text = h.text
    assert "Editing prod.\n  → file_edit path=environments/prod/main.jsonnet" in text
    assert "  ← ok" in text
    assert "\nScaled prod to 3.\n" in text
    assert "tokens: turn 30 (in 20 · out 10, 2 model calls) · session 30" in text
    assert "── git diff ──" in text
    assert "+{ replicas: 3 }" in text
    assert "environments/prod/extra.libsonnet" in text  # untracked new files too
    assert text.index("Scaled prod") < text.index("── git diff ──")
    request = h.provider.requests[0]
    assert "senior Site Reliability Engineer" in request.system
    assert request.messages[0].text == "scale prod to 3"
    # Edited in place, nothing committed.
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"


def test_one_shot_reports_a_failed_turn_in_one_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    denied = AgentError(ErrorKind.INVALID, "authentication failed (401); check ANTHROPIC_API_KEY")
    h = Harness([denied])

    assert h.main(["chat", "--repo", str(repo), "do something"]) == 1

    err = capsys.readouterr().err
    assert err == (
        "tanka-bot: error: the turn did not finish: invalid: authentication failed (401); "
        "check ANTHROPIC_API_KEY\n"
    )


def test_repl_runs_turns_and_commands(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = "hello\n/help\n\n/diff\n/clear\nagain\n/bogus\n/exit\nnever read\n"
    h = Harness([reply("Hi there."), reply("Fresh start.")], stdin=stdin)

    assert h.main(["chat", "--repo", str(repo)]) == 0

    text = h.text
    assert text.startswith("tanka-bot chat · scripted scripted-1 · ")
    assert text.count("❯ ") == 8  # noqa: RUF001
    assert "Hi there." in text
    assert "Fresh start." in text
    assert "/clear   start a fresh conversation" in text
    assert "no changes in the checkout" in text
    assert "conversation cleared" in text
    assert "unknown command /bogus; type /help" in text
    assert "session 30" in text  # the session total spans both turns
    # /clear: the second request carries only the new prompt.
    assert [len(r.messages) for r in h.provider.requests] == [1, 1]


def test_repl_ends_at_end_of_input(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    h = Harness([reply("one"), reply("two")], stdin="first\nsecond\n")
    assert h.main(["chat", "--repo", str(repo)]) == 0
    assert [len(r.messages) for r in h.provider.requests] == [1, 3]  # history carried over
    assert h.text.endswith("❯ \n")  # noqa: RUF001


def test_ctrl_c_cancels_the_turn_and_keeps_the_repl(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def interrupted(request: ModelRequest) -> ModelResponse:
        os.kill(os.getpid(), signal.SIGINT)  # what Ctrl+C does: KeyboardInterrupt in main
        release.wait(30)
        return reply("too late")

    edit = call(
        "file_edit",
        path="environments/prod/main.jsonnet",
        old_text="replicas: 1",
        new_text="replicas: 2",
    )
    h = Harness([tools(edit), interrupted, reply("still here")], "go\nnext\n/exit\n")
    try:
        assert h.main(["chat", "--repo", str(repo)]) == 0
    finally:
        release.set()

    assert "cancelling (edits made so far are kept)" in h.text
    assert "turn stopped: cancelled: cancelled with Ctrl+C" in h.text
    assert "still here" in h.text
    # The edit made before Ctrl+C stays.
    assert (repo / "environments/prod/main.jsonnet").read_text() == "{ replicas: 2 }\n"


def test_default_repo_is_the_git_root_of_the_cwd(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = Harness([reply("ok")])
    h.deps.cwd = repo / "environments" / "prod"
    assert h.main(["chat", "hi"]) == 0
    assert f"· {repo} @ " not in h.text  # one-shot prints no banner
    assert chat.resolve_repo(None, repo / "environments") == repo


BadRepo = Callable[[Path], tuple[list[str], str]]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda tmp: ([], "is not inside a git repository"), "cwd"),
        (lambda tmp: (["--repo", str(tmp / "missing")], "no such directory"), "missing"),
        (lambda tmp: (["--repo", str(tmp)], "is not inside a git repository"), "plain"),
        (
            lambda tmp: (["--repo", (tmp / "absent.git").as_uri()], "git clone failed"),
            "url",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_unusable_repos_fail_with_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    make: BadRepo,
    expected: str,
) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    h = Harness([])
    h.deps.cwd = outside
    argv, message = make(outside)
    assert h.main(["chat", *argv, "hi"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tanka-bot: error: ")
    assert message in err
    assert err.count("\n") == 1
    assert h.provider.requests == []


def test_missing_key_names_the_variable(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    h = Harness([])
    h.deps.environ = {"TANKA_BOT_PROVIDER": "gemini"}
    assert h.main(["chat", "--repo", str(repo), "hi"]) == 2
    assert "GEMINI_API_KEY" in capsys.readouterr().err


def test_provider_and_model_flags_override_settings(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = Harness([reply("ok")])
    h.deps.environ = {**ENV, "OPENAI_API_KEY": "sk-other"}
    argv = ["chat", "--repo", str(repo), "--provider", "openai", "--model", "gpt-x", "hi"]
    assert h.main(argv) == 0
    (settings,) = h.settings
    assert (settings.provider, settings.model_id) == ("openai", "gpt-x")


def test_empty_prompt_is_refused(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    h = Harness([])
    assert h.main(["chat", "--repo", str(repo), "  "]) == 1
    assert "the prompt is empty" in capsys.readouterr().err


def test_github_pr_list_uses_the_checkouts_origin(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "remote", "add", "origin", "git@github.com:acme/infra.git")
    with FakeGitHub(tokens=("ghs-dummy",)) as github:
        github.add_repo("acme", "infra")
        github.add_pull("acme/infra", title="Scale loki in prod", head="loki-scale")
        h = Harness([tools(call("github_pr_list")), reply("One PR is open.")])
        h.deps = CommandDeps(
            provider_factory=h._factory,
            registry_factory=lambda: ToolRegistry(GITHUB_TOOLS),
            environ={**ENV, "GITHUB_TOKEN": "ghs-dummy", "GITHUB_API_URL": github.url},
            stdout=h.out,
        )
        assert h.main(["chat", "--repo", str(repo), "what is open?"]) == 0
    results = [r for m in h.provider.requests[-1].messages for r in m.tool_results]
    assert len(results) == 1
    assert not results[0].is_error
    assert "Scale loki in prod" in results[0].content
    assert "ghs-dummy" not in h.text


def test_one_shot_prints_the_rendered_diff_with_secrets_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tanka"
    env = root / "environments" / "prod"
    env.mkdir(parents=True)
    (root / "tkrc.yaml").write_text("")
    (env / "spec.json").write_text(
        '{"apiVersion": "tanka.dev/v1alpha1", "kind": "Environment",'
        ' "spec": {"namespace": "prod"}}\n'
    )
    (env / "main.jsonnet").write_text(
        "{\n"
        "  deployment: { apiVersion: 'apps/v1', kind: 'Deployment',"
        " metadata: { name: 'web' }, spec: { replicas: 1 } },\n"
        "  secret: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' },"
        " stringData: { password: 'hunter2-old' } },\n"
        "}\n"
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "initial")
    edit = call(
        "file_write",
        path="environments/prod/main.jsonnet",
        content="{\n"
        "  deployment: { apiVersion: 'apps/v1', kind: 'Deployment',"
        " metadata: { name: 'web' }, spec: { replicas: 3 } },\n"
        "  secret: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' },"
        " stringData: { password: 'hunter2-new' } },\n"
        "}\n",
    )
    h = Harness([tools(edit), reply("Scaled web to 3.")])
    assert h.main(["chat", "--repo", str(root), "scale web"]) == 0
    rendered = h.text.split("── rendered diff ──", 1)[1]
    assert "environments/prod" in rendered
    assert "-  replicas: 1" in rendered
    assert "+  replicas: 3" in rendered
    # The rendered Secret never shows, nor do its values in the source the git diff shows.
    assert "hunter2" not in h.text
    assert "password: <redacted, value changed>" in rendered
    assert "+  secret: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }," in h.text
    assert " stringData: { password: '<redacted>' } },\n" in h.text


def test_a_url_is_worked_on_in_a_scratch_checkout(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    workdir = tmp_path / "work"
    edit = call(
        "file_edit",
        path="environments/prod/main.jsonnet",
        old_text="replicas: 1",
        new_text="replicas: 2",
    )
    h = Harness([tools(edit), reply("Done.")])
    h.deps.environ = {**ENV, "TANKA_BOT_WORKDIR": str(workdir)}
    assert h.main(["chat", "--repo", origin.as_uri(), "scale"]) == 0
    (scratch,) = (workdir / "sessions").iterdir()
    assert (scratch / "environments/prod/main.jsonnet").read_text() == "{ replicas: 2 }\n"
    assert "+{ replicas: 2 }" in h.text
    # Neither the origin nor the user's own checkout changed.
    assert (repo / "environments/prod/main.jsonnet").read_text() == "{ replicas: 1 }\n"
    assert git(origin, "show", "main:environments/prod/main.jsonnet") == "{ replicas: 1 }\n"
    assert git(scratch, "branch", "--show-current").startswith("tanka-bot/chat-")


# --- /approve and --approve -----------------------------------------------------------------

GITHUB_TOKEN = "ghp_ChatApproveSecret0123456789"


class EditingStdin(io.StringIO):
    """Lines of input; `before` runs just before the line it is keyed by is first read."""

    def __init__(self, text: str, before: dict[str, Callable[[], object]]) -> None:
        super().__init__(text)
        self.before = dict(before)

    def readline(self, size: int | None = -1, /) -> str:  # type: ignore[override]  # typeshed
        line = super().readline()
        hook = self.before.pop(line.strip(), None)
        if hook is not None:
            hook()
        return line


@pytest.fixture
def published_repo(repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The chat repo with a bare origin to push to and a local git identity."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    git(repo, "remote", "add", "origin", origin.as_uri())
    git(repo, "config", "user.name", "Tess Tester")
    git(repo, "config", "user.email", "tess@example.com")
    return repo, origin


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(tokens=(GITHUB_TOKEN,)) as server:
        server.add_repo("acme", "infra")
        yield server


def with_github(h: Harness, github: FakeGitHub) -> None:
    environ = {
        **ENV,
        "GITHUB_TOKEN": GITHUB_TOKEN,
        "GITHUB_API_URL": github.url,
        "TANKA_BOT_GITHUB_REPO": "acme/infra",
    }
    h.deps.environ = environ
    h.deps.code_host_factory = lambda s: build_code_host(s, write_interval=None)


def scale(replicas: int) -> ToolCall:
    return call(
        "file_write", path="environments/prod/main.jsonnet", content=f"{{ replicas: {replicas} }}\n"
    )


def test_one_shot_approve_opens_the_pull_request(
    published_repo: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, github: FakeGitHub
) -> None:
    repo, origin = published_repo
    new = call("file_write", path="environments/dev/main.jsonnet", content="{ replicas: 1 }\n")
    h = Harness([tools(scale(3), new), reply("Scaled prod to 3 and added dev.")])
    with_github(h, github)

    assert h.main(["chat", "--repo", str(repo), "--approve", "Scale prod to 3"]) == 0

    [pull] = github.repos["acme/infra"].pulls.values()
    assert pull.head.startswith("tanka-bot/chat-")
    assert pull.head.endswith("-scale-prod-to-3")
    assert (pull.base, pull.title) == ("main", "Scale prod to 3")
    assert "Requested by Tess Tester <tess@example.com> · approved by Tess Tester" in pull.body
    assert "Scaled prod to 3 and added dev." in pull.body
    assert "- `environments/dev/main.jsonnet`" in pull.body
    assert "Nothing was applied to any cluster" in pull.body
    assert f"✓ pull request opened: {github.web_url}/acme/infra/pull/1" in h.text
    assert h.text.index("── git diff ──") < h.text.index("✓ pull request opened")
    assert git(origin, "show", f"{pull.head}:environments/prod/main.jsonnet") == "{ replicas: 3 }\n"
    assert git(origin, "show", f"{pull.head}:environments/dev/main.jsonnet") == "{ replicas: 1 }\n"
    assert git(origin, "log", "-1", "--format=%an", pull.head).strip() == "Tess Tester"
    assert git(origin, "rev-list", "--count", "main").strip() == "1"  # main untouched
    assert GITHUB_TOKEN not in h.text


def test_repl_approve_refuses_a_hand_edit_then_publishes_and_updates(
    published_repo: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, github: FakeGitHub
) -> None:
    repo, origin = published_repo
    target = repo / "environments/prod/main.jsonnet"
    stdin = EditingStdin(
        "scale prod\n/approve\n/approve\nadd a note\n/approve\n/exit\n",
        {"/approve": lambda: target.write_text("{ replicas: 5 }\n")},  # edited by hand
    )
    note = call("file_write", path="NOTES.md", content="scaled\n")
    h = Harness([tools(scale(3)), reply("Scaled."), tools(note), reply("Noted.")])
    h.deps.stdin = stdin
    with_github(h, github)

    assert h.main(["chat", "--repo", str(repo)]) == 0

    text = h.text
    # The turn's change was shown, with the hint; the hand edit was refused with the new diff.
    first_diff = text.index("+{ replicas: 3 }")
    assert text.index("Type /approve to open a pull request") > first_diff
    refused = text.index("✗ the checkout changed since the proposal was shown")
    assert first_diff < text.index("+{ replicas: 5 }") < refused
    # The second /approve published what was then shown; the next one updated the same PR.
    assert text.count("✓ pull request opened:") == 1
    assert "✓ pull request #1 updated:" in text
    [pull] = github.repos["acme/infra"].pulls.values()
    assert git(origin, "show", f"{pull.head}:environments/prod/main.jsonnet") == "{ replicas: 5 }\n"
    assert git(origin, "show", f"{pull.head}:NOTES.md") == "scaled\n"
    assert git(origin, "rev-list", "--count", pull.head).strip() == "3"  # base + two approvals
    assert pull.title == "scale prod"
    assert "Noted." in pull.body
    assert "/approve open a pull request" in HELP


def test_approve_without_github_names_the_variables(
    published_repo: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo, origin = published_repo
    h = Harness([tools(scale(2)), reply("Done.")], stdin="go\n/approve\n/exit\n")
    assert h.main(["chat", "--repo", str(repo)]) == 0
    assert "✗ GitHub is not configured" in h.text
    assert "set GITHUB_TOKEN (or GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY)" in h.text

    h = Harness([tools(scale(4)), reply("Done.")])
    assert h.main(["chat", "--repo", str(repo), "--approve", "scale"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tanka-bot: error: GitHub is not configured")
    assert err.count("\n") == 1
    assert (repo / "environments/prod/main.jsonnet").read_text() == "{ replicas: 4 }\n"  # kept
    assert git(origin, "for-each-ref", "--format=%(refname:short)").split() == ["main"]


def test_approve_with_nothing_shown_or_nothing_changed(
    published_repo: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    github: FakeGitHub,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo, _ = published_repo
    h = Harness([reply("Nothing to do.")])
    with_github(h, github)
    assert h.main(["chat", "--repo", str(repo), "--approve", "look around"]) == 0
    assert "nothing to approve: the turn made no changes" in h.text

    # A hand edit before any diff was shown: /approve shows it first instead of publishing it.
    (repo / "environments/prod/main.jsonnet").write_text("{ replicas: 9 }\n")
    h = Harness([], stdin="/approve\n/approve\n/exit\n")
    with_github(h, github)
    assert h.main(["chat", "--repo", str(repo)]) == 0
    assert h.text.index("+{ replicas: 9 }") < h.text.index("✗ review the diff above")
    assert "✓ pull request opened" in h.text
    assert len(github.repos["acme/infra"].pulls) == 1

    h = Harness([])
    assert h.main(["chat", "--repo", str(repo), "--approve"]) == 1
    assert "--approve needs a PROMPT" in capsys.readouterr().err


def test_a_url_chat_approves_onto_that_url(
    published_repo: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    github: FakeGitHub,
) -> None:
    _, origin = published_repo
    h = Harness([tools(scale(6)), reply("Scaled.")])
    with_github(h, github)
    h.set_env("TANKA_BOT_WORKDIR", str(tmp_path / "work"))
    assert h.main(["chat", "--repo", origin.as_uri(), "--approve", "scale to six"]) == 0
    [pull] = github.repos["acme/infra"].pulls.values()
    assert pull.head.endswith("-scale-to-six")
    assert git(origin, "show", f"{pull.head}:environments/prod/main.jsonnet") == "{ replicas: 6 }\n"
    assert "✓ pull request opened" in h.text


def test_chat_closes_its_pull_request_source(
    published_repo: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, github: FakeGitHub
) -> None:
    # The github_pr_list source is a GitHub client with a log filter on PyGithub's logger; a chat
    # that never closes it leaves one filter (holding the token) and one HTTP session per run.

    repo, _ = published_repo
    requester = logging.getLogger("github.Requester")
    before = list(requester.filters)
    h = Harness([reply("Nothing to do.")])
    with_github(h, github)
    assert h.main(["chat", "--repo", str(repo), "look around"]) == 0
    assert requester.filters == before


def test_a_url_with_credentials_is_refused_without_echoing_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    h = Harness([])
    h.set_env("TANKA_BOT_WORKDIR", str(tmp_path / "work"))
    url = "https://ops:ghp_UrlSecret0123456789@127.0.0.1:9/acme/infra.git"
    assert h.main(["chat", "--repo", url, "hi"]) == 1
    err = capsys.readouterr().err
    assert "carries credentials" in err
    assert "ghp_UrlSecret0123456789" not in err
    assert err.count("\n") == 1


def test_an_unusable_workdir_fails_with_one_line(
    tmp_path: Path,
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    h = Harness([])
    h.set_env("TANKA_BOT_WORKDIR", str(blocker / "work"))
    assert h.main(["chat", "--repo", origin.as_uri(), "hi"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tanka-bot: error: ")
    assert "TANKA_BOT_WORKDIR" in err
    assert err.count("\n") == 1


def test_files_only_the_users_global_gitignore_hides_stop_a_local_chat(
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The bot's git reads no global config: without this check `.env` would be a "new file"
    # in the diff, sent to the model and committed by /approve.
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text(".env\n")
    (repo / ".env").write_text("API_TOKEN=hunter2-secret\n")
    h = Harness([reply("Nothing to do.")])
    h.deps.environ = {**ENV, "HOME": str(home)}

    assert h.main(["chat", "--repo", str(repo), "look around"]) == 1
    err = capsys.readouterr().err
    assert "only your global gitignore hides (.env)" in err
    assert ".git/info/exclude" in err
    assert "hunter2-secret" not in err + h.text
    assert h.provider.requests == []

    (repo / ".git" / "info" / "exclude").write_text(".env\n")  # the fix the message names
    assert h.main(["chat", "--repo", str(repo), "look around"]) == 0
    assert "hunter2-secret" not in h.text


SECRET_ENV = (
    "{\n"
    "  deployment: { apiVersion: 'apps/v1', kind: 'Deployment',"
    " metadata: { name: 'web' }, spec: { replicas: %d } },\n"
    "  secret: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' },"
    " stringData: { password: 'dummy-pass-Quux9' } },\n"
    "}\n"
)


def test_approve_never_publishes_a_secret_value_in_title_branch_or_body(
    published_repo: tuple[Path, Path], github: FakeGitHub
) -> None:
    repo, _ = published_repo
    env = repo / "environments" / "prod"
    (repo / "tkrc.yaml").write_text("")
    (env / "spec.json").write_text(
        '{"apiVersion": "tanka.dev/v1alpha1", "kind": "Environment",'
        ' "spec": {"namespace": "prod"}}\n'
    )
    (env / "main.jsonnet").write_text(SECRET_ENV % 1)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "a Secret")
    write = call("file_write", path="environments/prod/main.jsonnet", content=SECRET_ENV % 3)
    answer = "Scaled web to 3; the password dummy-pass-Quux9 is unchanged."
    h = Harness([tools(write), reply(answer)])
    with_github(h, github)

    prompt = "dummy-pass-Quux9 is the db password; scale web to 3"
    assert h.main(["chat", "--repo", str(repo), "--approve", prompt]) == 0

    [pull] = github.repos["acme/infra"].pulls.values()
    for shown in (pull.title, pull.head, pull.body, h.text):
        assert "quux9" not in shown.lower()
    assert pull.title == "<redacted> is the db password; scale web to 3"
    assert "Scaled web to 3; the password <redacted> is unchanged." in pull.body
