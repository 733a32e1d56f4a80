"""Fixtures for end-to-end chat scenarios: a Tanka project in git, fake model APIs, the CLI.

Each scenario runs `bot.cli.main(["chat", "--repo", ..., PROMPT])` in-process with the real
provider adapter (the real SDK over HTTP to a fake on 127.0.0.1) and the real tool registry; only
the environment is set, through monkeypatch, the way an operator would set it.
"""

from __future__ import annotations

import dataclasses
import io
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.cli import main
from bot.compose import CommandDeps
from fakes.anthropic_server import FakeAnthropic
from fakes.gemini_server import FakeGemini
from tests.scenarios.models import AnthropicModel, GeminiModel, ScriptedModel
from tests.scenarios.project import make_project

# Distinctive, so a test can prove they never reach the output.
ANTHROPIC_KEY = "dummy-anthropic-scenario-SECRET-5f3a9c"
GEMINI_KEY = "AIza-scenario-SECRET-5f3a9c"
KEYS = {"anthropic": ANTHROPIC_KEY, "gemini": GEMINI_KEY}


@dataclass(frozen=True, slots=True)
class ChatRun:
    code: int
    out: str
    err: str


Chat = Callable[..., ChatRun]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "infra")


@pytest.fixture
def anthropic() -> Iterator[AnthropicModel]:
    with FakeAnthropic(api_key=ANTHROPIC_KEY) as fake:
        yield AnthropicModel(fake)


@pytest.fixture
def gemini() -> Iterator[GeminiModel]:
    with FakeGemini(api_key=GEMINI_KEY) as fake:
        yield GeminiModel(fake)


@pytest.fixture(params=["anthropic", "gemini"])
def model(request: pytest.FixtureRequest) -> ScriptedModel:
    """Either provider: scenarios about tools, not the wire, run against both."""
    chosen: ScriptedModel = request.getfixturevalue(request.param)
    return chosen


def _isolate(monkeypatch: pytest.MonkeyPatch) -> None:
    # The developer's own settings must not steer a scenario (tests/conftest.py drops the keys).
    for name in list(os.environ):
        if name.startswith("TANKA_BOT_"):
            monkeypatch.delenv(name)
    # A developer's HTTP proxy must not sit between the SDKs and the fakes on 127.0.0.1.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def chat_deps() -> CommandDeps:
    """The real outside world for `chat`; a scenario may replace a part (jb's registry)."""
    return CommandDeps()


@pytest.fixture
def chat(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    chat_deps: CommandDeps,
) -> Chat:
    """Run `tanka-bot chat` on `repo` against `model`; its exit code, stdout and stderr.

    `prompt` runs one-shot; None runs the REPL on the lines of `stdin`. `key` replaces the API
    key the fake expects, `env` adds settings (TANKA_BOT_MAX_STEPS...).
    """

    def run(
        repo: Path,
        prompt: str | None,
        model: ScriptedModel,
        *,
        key: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: str = "",
    ) -> ChatRun:
        _isolate(monkeypatch)
        monkeypatch.setenv("TANKA_BOT_PROVIDER", model.provider)
        # Scenarios script every model call; test_chat_review.py turns the reviewer on.
        monkeypatch.setenv("TANKA_BOT_REVIEW", "false")
        settings = {**model.env(key or KEYS[model.provider]), **(env or {})}
        for name, value in settings.items():
            monkeypatch.setenv(name, value)
        deps = dataclasses.replace(chat_deps, stdin=io.StringIO(stdin))
        capsys.readouterr()  # start from clean streams
        argv = ["chat", "--repo", str(repo), *([prompt] if prompt is not None else [])]
        code = main(argv, chat_deps=deps)
        captured = capsys.readouterr()
        return ChatRun(code, captured.out, captured.err)

    return run
