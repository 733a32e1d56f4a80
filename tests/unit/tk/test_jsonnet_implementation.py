"""--jsonnet-implementation go|rust and TANKA_BOT_JSONNET: the same bytes from either evaluator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import ConfigError, load_settings
from tools.tanka.evaluation import implementation
from tools.tanka.evaluation.evaluate import ANSWERED


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An environment whose render writes numbers into text, where go-jsonnet must answer."""
    root = tmp_path / "project"
    env = root / "environments" / "default"
    env.mkdir(parents=True)
    (root / "jsonnetfile.json").write_text("{}")
    spec = {"apiVersion": "tanka.dev/v1alpha1", "kind": "Environment",
            "metadata": {"name": "environments/default"}, "spec": {"namespace": "ns"}}  # fmt: skip
    (env / "spec.json").write_text(json.dumps(spec))
    (env / "main.jsonnet").write_text(
        "{ cm: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' },\n"
        "  data: { ratio: '' + std.extVar('r'), file: std.thisFile, half: std.toString(0.5) } } }\n"
    )
    monkeypatch.chdir(root)
    implementation.choose(None)
    return root


@pytest.mark.parametrize(("ratio", "answers"), [("0.1", {"go"}), ("3", {"rust"})])
def test_show_is_the_same_on_both_and_rust_falls_back_where_it_must(
    project: Path, capsys: pytest.CaptureFixture[str], ratio: str, answers: set[str]
) -> None:
    outputs = {}
    for name in ("go", "rust"):
        before = ANSWERED.copy()
        args = ["tk", "show", "environments/default", "--ext-code", f"r={ratio}"]
        assert main([*args, "--jsonnet-implementation", name]) == 0
        outputs[name] = capsys.readouterr().out
        assert set(ANSWERED - before) - {"fallback"} == ({"go"} if name == "go" else answers)
    assert outputs["go"] == outputs["rust"]
    assert f"file: {project}/environments/default/main.jsonnet" in outputs["rust"]
    # The flag holds for its command only.
    assert implementation.chosen() == "rust"


def test_an_unknown_implementation_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["tk", "show", "environments/default", "--jsonnet-implementation", "java"])
    assert info.value.code == 2
    assert "the engine evaluates with 'go' (go-jsonnet) or 'rust'" in capsys.readouterr().err


def test_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    implementation.choose(None)
    try:
        assert load_settings({}).jsonnet == "rust"
        assert implementation.chosen() == "rust"
        assert load_settings({"TANKA_BOT_JSONNET": "go"}).jsonnet == "go"
        assert implementation.chosen() == "go"
        with pytest.raises(ConfigError, match="TANKA_BOT_JSONNET"):
            load_settings({"TANKA_BOT_JSONNET": "java"})
    finally:
        implementation.choose(None)
