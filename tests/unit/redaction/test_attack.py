"""Tried as an attacker would: Secret values copied out of the Secret never reach the model.

The real tool registry on a real git repository (tests/secret_repo.py): a ConfigMap copying a
Secret's values plain and base64-encoded, a lower-case `kind: secret`, a multi-line certificate,
and the source file holding the values. Once the session has rendered the environment, no tool
result the model gets shows any of them, while what is not secret stays readable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.scenarios.project import git
from tests.secret_repo import (
    CREDS,
    ENV,
    NEW_VISIBLE,
    PASSWORD,
    VISIBLE,
    change_password,
    leaks,
    make_secret_repo,
)
from tools.catalog import default_registry
from tools.context import ToolContext
from tools.redaction import REDACTED


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = make_secret_repo(tmp_path / "infra")
    base = git(root, "rev-parse", "HEAD").strip()
    change_password(root)
    return ToolContext(root=root, base_commit=base)


def run(ctx: ToolContext, name: str, **arguments: Any) -> str:
    outcome = default_registry().execute(ctx, name, arguments)
    assert not outcome.is_error, outcome.content
    return outcome.content


def test_no_tool_result_shows_a_value_once_rendered(ctx: ToolContext) -> None:
    shown = run(ctx, "tanka_show", env_path=ENV)
    assert leaks(shown) == []
    assert f"visible: {NEW_VISIBLE}" in shown
    assert "kind: secret" in shown
    assert f"leaked: {REDACTED}" in shown
    assert f"leaked_b64: {REDACTED}" in shown
    assert "key: <redacted>" in shown  # the lower-case kind, by kind
    assert f"  phrase: {REDACTED}\n  token: {REDACTED}\n" in shown  # folded by YAML, one run

    diff = run(ctx, "tanka_diff", env_path=ENV)  # renders the base: the old password too
    assert leaks(diff) == []
    assert f"-  visible: {VISIBLE}" in diff.splitlines()
    assert f"+  visible: {NEW_VISIBLE}" in diff.splitlines()
    assert f"-  leaked: {REDACTED}" in diff.splitlines()
    assert f"+  leaked: {REDACTED}" in diff.splitlines()

    git_diff = run(ctx, "git_diff")
    assert leaks(git_diff) == []
    assert f"-  password: '{REDACTED}'," in git_diff.splitlines()
    assert f"+  password: '{REDACTED}'," in git_diff.splitlines()
    assert f"+      visible: '{NEW_VISIBLE}'," in git_diff.splitlines()

    source = run(ctx, "file_read", path=CREDS)
    assert leaks(source) == []
    assert "apiToken:" in source
    found = run(ctx, "file_search", glob_pattern="**/*.libsonnet", text_query="dummy")
    assert leaks(found) == []
    assert "lib/creds.libsonnet" in found


def test_before_any_render_the_source_is_not_known_to_be_secret(ctx: ToolContext) -> None:
    # What the mask holds is what the session rendered: a documented limit, pinned here.
    assert PASSWORD not in run(ctx, "file_read", path=CREDS)
    assert "dummy-db-password-NEW-9Xw4" in run(ctx, "file_read", path=CREDS)
    run(ctx, "tanka_show", env_path=ENV)
    assert leaks(run(ctx, "file_read", path=CREDS)) == []
