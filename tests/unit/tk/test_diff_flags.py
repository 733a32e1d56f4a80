"""`tanka-bot tk diff` with tk diff's evaluation flags: --name, -t/--target, --ext-*/--tla-*,
applied to both sides; a stored or cached base render is reused only with the same flags."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.cli import main
from tests.git import git
from tools.tanka.base_tree import BaseTrees
from tools.tanka.diff.render_cache import RenderOptions
from tools.tanka.diff.revision import RevisionDiffer
from tools.tanka.pipeline.rendered import RenderedEnv

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tanka_diff" / "repo"
DEV_VARS = """function(replicas='1') {
  config: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings' },
    data: { mode: std.extVar('mode'), replicas: replicas },
  },
}
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    (root / "environments/dev/main.jsonnet").write_text(DEV_VARS)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    monkeypatch.chdir(root)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # base trees and their sidecars
    monkeypatch.delenv("TANKA_BOT_CONFIG", raising=False)
    monkeypatch.delenv("TANKA_BOT_BASE_BRANCH", raising=False)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["tk", "diff", "--base", "HEAD", *args])
    out, err = capsys.readouterr()
    return code, out, err


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_name_selects_one_inline_environment(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(repo / "environments/multi/main.jsonnet", "hello: name", "hello: name + '!'")
    code, out, _ = run(capsys, "environments/multi", "--name", "multi/green")
    assert code == 16
    assert "environments/multi [multi/green]" in out
    assert "multi/blue" not in out
    code, out, _ = run(capsys, "environments/multi")
    assert code == 16
    assert "[multi/blue]" in out


def test_targets_filter_both_sides(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prod = repo / "environments/prod/main.jsonnet"
    edit(prod, "app.deployment('web', 3)", "app.deployment('web', 4)")
    code, out, _ = run(capsys, "environments/prod", "-t", "deployment/web")
    assert code == 16
    assert "+  replicas: 4" in out
    code, out, err = run(capsys, "environments/prod", "-t", "service/.*,secret/.*")
    assert (code, out) == (0, "")
    assert err.splitlines()[-1] == "No differences."


def test_ext_and_tla_flags_reach_both_sides_and_never_share_a_stored_base(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The tree is unchanged: with the same flags on both sides there is never a difference. A
    # base render stored for other flags, if reused, would show one.
    for flags in (["-V", "mode=a"], ["--ext-str", "mode=b"], ["-V", "mode=b", "-A", "replicas=2"]):
        code, out, err = run(capsys, "environments/dev", *flags)
        assert (code, out, err) == (0, "", "No differences.\n"), flags
    edit(repo / "environments/dev/main.jsonnet", "mode: std.extVar('mode')", "mode: 'fixed'")
    code, out, _ = run(
        capsys, "environments/dev", "--ext-code", "mode='b'", "--tla-str", "replicas=2"
    )
    assert code == 16
    assert "-  mode: b\n+  mode: fixed" in out
    assert 'replicas: "2"' in out


def test_missing_ext_var_is_the_evaluation_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "environments/dev")
    assert code == 0  # fails the same way on both sides: already failing, not compared
    assert "already failing" in err
    assert "Undefined external variable: mode" in err


def test_render_cache_keys_by_options(repo: Path, tmp_path: Path) -> None:
    calls: list[RenderOptions] = []
    differ = RevisionDiffer(trees=BaseTrees(tmp_path / "trees"), workers=1)
    inner = differ.renderer

    def counting(entrypoint: Path, root: Path, options: RenderOptions) -> Sequence[RenderedEnv]:
        calls.append(options)
        return inner(entrypoint, root, options)

    differ.renderer = counting
    a = RenderOptions.of(ext_vars={"mode": "'a'"})
    b = RenderOptions.of(ext_vars={"mode": "'b'"})
    for options in (a, b, a, b):
        result = differ.diff(repo, "HEAD", ["environments/dev"], options=options)
        assert not result.has_changes
        assert not result.errors
    # Each option set renders its base once; the working tree is rendered every time.
    assert calls == [a, a, b, b, a, b]
    assert a.key() != b.key()
    assert RenderOptions.of().key() == ""
