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
    APP,
    CREDS,
    ENV,
    NEW_PASSWORD,
    NEW_VISIBLE,
    PASSWORD,
    VISIBLE,
    add_copying_env,
    change_password,
    leaks,
    make_secret_repo,
)
from tools.catalog import default_registry
from tools.context import ToolContext
from tools.mask_teacher import MaskTeacher
from tools.redaction import REDACTED, SecretMask
from tools.tanka.diff.revision import RevisionDiffer


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
    # Folded by YAML, one run. Found by meaning, the run takes the "e" of "phrase" too: the
    # passphrase itself holds "e dummy h" ("staple dummy horse"), so that "e" may be its.
    assert f"  phras{REDACTED}\n  token: {REDACTED}\n" in shown

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


def test_without_a_teacher_only_what_was_rendered_is_known(ctx: ToolContext) -> None:
    # What the mask holds is what the session rendered; front ends give a teacher (below).
    assert "dummy-db-password-NEW-9Xw4" in run(ctx, "file_read", path=CREDS)
    run(ctx, "tanka_show", env_path=ENV)
    assert leaks(run(ctx, "file_read", path=CREDS)) == []


@pytest.fixture
def taught(tmp_path: Path) -> ToolContext:
    """A session as the front ends make it: a teacher, and an environment copying a value."""
    root = add_copying_env(make_secret_repo(tmp_path / "infra"))
    base = git(root, "rev-parse", "HEAD").strip()
    change_password(root)
    mask, differ = SecretMask(), RevisionDiffer()
    teacher = MaskTeacher(root, base, mask, differ)
    return ToolContext(root=root, base_commit=base, secret_mask=mask, differ=differ,
                       teach_mask=teacher)  # fmt: skip


def test_the_first_tool_output_is_masked_before_any_render(taught: ToolContext) -> None:
    source = run(taught, "file_read", path=CREDS)  # the very first call: nothing rendered yet
    assert leaks(source) == []
    assert f"password: '{REDACTED}'" in source
    assert leaks(run(taught, "git_diff")) == []


def test_a_copy_in_an_environment_without_the_secret_is_masked(taught: ToolContext) -> None:
    shown = run(taught, "tanka_show", env_path=APP)
    assert leaks(shown) == []
    assert PASSWORD not in shown
    assert f"copied: {REDACTED}" in shown
    assert f"copied_b64: {REDACTED}" in shown
    assert f"copied_url: {REDACTED}" in shown


def test_a_secret_only_at_the_base_still_masks_its_copies(taught: ToolContext) -> None:
    # The change drops the Secret (and keeps the password); the ConfigMap still copies it.
    creds = taught.root / CREDS
    creds.write_text(creds.read_text().replace(NEW_PASSWORD, PASSWORD))
    main = taught.root / ENV / "main.jsonnet"
    text = main.read_text()
    main.write_text(text[: text.index("  secret: {")] + text[text.index("  lower: {") :])
    shown = run(taught, "tanka_show", env_path=ENV)
    assert "kind: Secret" not in shown
    assert leaks(shown) == []
    assert PASSWORD not in shown
    assert f"leaked: {REDACTED}" in shown
