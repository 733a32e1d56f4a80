"""Shared fixtures. No test sees real credentials or reaches the internet."""

from __future__ import annotations

import pytest

_CREDENTIAL_VARS = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_APP_ID",
    "GITHUB_APP_PRIVATE_KEY",
    "GITHUB_APP_PRIVATE_KEY_PATH",
    "GITHUB_APP_INSTALLATION_ID",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "TANKA_BOT_CONFIG",
    "REDIS_URL",
)


@pytest.fixture(autouse=True)
def _no_real_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _CREDENTIAL_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _own_operator_checks(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Evaluations in this process keep their rewritten files and doubts per test, away from the
    machine's (tools/tanka/evaluation/rust_operators.py): which path a test takes is its own."""
    from tools.tanka.evaluation import rust_operators  # noqa: PLC0415 - only when tests run

    kept = tmp_path_factory.mktemp("rewritten")
    monkeypatch.setattr(rust_operators, "cache_dir", lambda: kept)
    monkeypatch.setattr(rust_operators, "_doubted", set())
    monkeypatch.setattr(rust_operators, "_memory", {})
